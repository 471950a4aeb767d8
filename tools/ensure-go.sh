#!/usr/bin/env bash
# Makes sure a Go toolchain new enough for go.mod is on PATH. On a fresh Debian machine
# without one, it fetches the official toolchain from the Go module proxy (the same
# archive `go` itself downloads with GOTOOLCHAIN=auto) into .cache/go, and prints the bin
# folder to put on PATH. Prints nothing when a suitable go is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(awk '/^go /{print $2; exit}' go.mod)
have_ok() {
	command -v go >/dev/null 2>&1 || return 1
	# Go >= 1.21 fetches a newer toolchain itself when go.mod asks for one.
	local v; v=$(go env GOVERSION 2>/dev/null | sed 's/^go//') || return 1
	[ "$(printf '%s\n%s\n' "1.21" "$v" | sort -V | head -n1)" = "1.21" ]
}
if have_ok; then exit 0; fi
if [ -x .cache/go/bin/go ]; then echo "$PWD/.cache/go/bin"; exit 0; fi
arch=$(uname -m); case "$arch" in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; esac
url="${GOPROXY_URL:-https://proxy.golang.org}/golang.org/toolchain/@v/v0.0.1-go${want}.linux-${arch}.zip"
echo "ensure-go: no Go >= 1.21 found; fetching go${want} from $url" >&2
if ! command -v curl >/dev/null || ! command -v unzip >/dev/null; then
	sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd=sudo
	$sudo_cmd apt-get update -qq && $sudo_cmd apt-get install -y -qq curl unzip >&2
fi
mkdir -p .cache && tmp=$(mktemp -d)
curl -fsSL "$url" -o "$tmp/go.zip"
unzip -q "$tmp/go.zip" -d "$tmp"
rm -rf .cache/go && mv "$tmp"/golang.org/toolchain@*/ .cache/go && rm -rf "$tmp"
chmod +x .cache/go/bin/* .cache/go/pkg/tool/*/* 2>/dev/null || true
echo "$PWD/.cache/go/bin"
