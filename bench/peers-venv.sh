#!/usr/bin/env bash
# Makes target/peers-venv with the extractors we compare against (trafilatura,
# resiliparse), from PyPI. lxml_html_clean: lxml 6 moved lxml.html.clean out,
# and trafilatura's jusText import needs it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/../target/peers-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import trafilatura, resiliparse" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check trafilatura resiliparse lxml_html_clean
fi
"$venv/bin/python" - <<'PY'
import importlib.metadata as m
print("peers: trafilatura", m.version("trafilatura"), "| resiliparse", m.version("resiliparse"))
PY
