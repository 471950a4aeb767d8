# gallery remakes the README's pictures (docs/img) with the built vpbench: a still of each
# library scenario at 800 x 450 from the default view, and animated GIFs (ffmpeg) of the
# surgery and coffee scenes from their start, 15 pictures a simulated second (NAME:T:FPS
# another rate: splash's 0.4 s at 50, its splash over in a few tenths). Every
# picture is taken at a simulated time, so the gallery is the same on every machine
# (up to the OpenGL implementation's rasterization). It needs ffmpeg and, without a
# display, Xvfb, which only make test installs otherwise (deps-ffmpeg, deps-xvfb).

GALLERY_STILLS := bowl:3 three_layers:3 coffee:3 surgery:2 rock:3 passages:3 waterfall:1.5 rain:2 gauze:2 fountain:2 dambreak:0.35 bore:0.3 splash:0.13 jug:0.6 drip:0.3
GALLERY_CLIPS := surgery:2.4 coffee:3 waterfall:2 rain:2 fountain:2 dambreak:0.6 splash:0.4:50 jug:1.4 drip:1:30

.PHONY: gallery
gallery: build deps-ffmpeg deps-xvfb
	@mkdir -p docs/img
	@for s in $(GALLERY_STILLS); do n=$${s%%:*}; t=$${s##*:}; \
		echo "gallery: docs/img/$$n.png (t = $$t s)"; \
		./$(BIN) render --at $$t --width 800 --height 450 --png docs/img/$$n.png scripts/$$n.lua >/dev/null || exit 1; \
	done
	@for s in $(GALLERY_CLIPS); do n=$${s%%:*}; r=$${s#*:}; t=$${r%%:*}; f=15; \
		case $$r in *:*) f=$${r##*:};; esac; \
		echo "gallery: docs/img/$$n.gif (t = 0 to $$t s, $$f pictures a second)"; \
		./$(BIN) render --from 0 --to $$t --fps $$f --width 640 --height 360 --out docs/img/$$n.gif scripts/$$n.lua >/dev/null || exit 1; \
	done
