// Package archcheck holds a test only: the module's packages import each other one way,
// down the stack docs/architecture.md draws (the world below the binding, the binding
// below the run loop, the renderer beside them reading frames), so that a step back up
// (the preview reaching into the Lua binding, the scene into the engine) fails the build's
// tests instead of creeping in.
package archcheck
