#!/usr/bin/env bash
# dap-vscode.sh - drive the debug adapters (lanai-emu dap, netvm dap) with
# VS Code's own adapter test harness, @vscode/debugadapter-testsupport's
# DebugClient (editors/vscode/test/adapter.test.js). .ci/run runs it.
# Needs node and npm (the package is installed from the npm registry into
# a temporary directory); without them it says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "dap-vscode: SKIP: node and npm are needed for VS Code's adapter test harness (not installed)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bin/" ./cmd/lanai-emu ./cmd/netvm ./cmd/lanai-as
"$tmp/bin/lanai-as" -o "$tmp/rec-s.elf" firmware/crt/src/*.s fixtures/c/s/recursion.O1.s
"$tmp/bin/lanai-as" -o "$tmp/rec-g.elf" firmware/crt/src/*.s fixtures/c/g/recursion.O1.s
if ! (cd "$tmp" && npm install --no-audit --no-fund --silent @vscode/debugadapter-testsupport@1.68.0 >/dev/null); then
	echo "dap-vscode: SKIP: npm could not install @vscode/debugadapter-testsupport (no registry?)"
	exit 0
fi
NODE_PATH="$tmp/node_modules" LANAI_EMU="$tmp/bin/lanai-emu" NETVM="$tmp/bin/netvm" \
	REC_S_ELF="$tmp/rec-s.elf" REC_G_ELF="$tmp/rec-g.elf" REPO="$PWD" \
	node editors/vscode/test/adapter.test.js
