package engine

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vpbench/vpbench/internal/meshio"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/surface"
)

// terrainExport is what --export-every wrote of the terrain: the scene's terrain version
// of the last file (0: none yet) and how many files.
type terrainExport struct {
	version int
	files   int
}

// exportFrame writes frame's liquid surface m as <name>_<frame>.<ext> in the export
// folder, the floating bodies (when there are some) as bodies_<name>_<frame>.<ext>, and, when the terrain is not the one last written (the first export, a
// sim:terrain since), the terrain mesh as terrain_<name>_<k>.<ext>, k = 0, 1, ... (not
// <name>_..., which a sequence importer or a <name>_* pattern would take for a frame): a
// frame's terrain is the last terrain file written at or before it, so that Blender or
// Houdini gets the whole scene without a copy of an unchanged terrain every frame.
func (w *frameWork) exportFrame(sc *scene.Scene, frame int, m *surface.Mesh) error {
	f, err := meshio.ParseFormat(w.export.Format)
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(sc.Name(), ".lua")
	path := filepath.Join(w.export.Dir, fmt.Sprintf("%s_%06d.%s", name, frame, f.Ext()))
	if err := m.WriteFileFormat(path, f); err != nil {
		return err
	}
	if sc.BodyCount() > 0 {
		if err := sc.ExportBodies(filepath.Join(w.export.Dir, fmt.Sprintf("bodies_%s_%06d.%s", name, frame, f.Ext())), f); err != nil {
			return err
		}
	}
	tm, version, err := sc.TerrainMesh()
	if err != nil {
		return err
	}
	if version == w.terrain.version {
		return nil
	}
	tpath := filepath.Join(w.export.Dir, fmt.Sprintf("terrain_%s_%04d.%s", name, w.terrain.files, f.Ext()))
	if err := tm.WriteFileFormat(tpath, f); err != nil {
		return err
	}
	w.terrain.version = version
	w.terrain.files++
	return nil
}
