#!/usr/bin/env bash
# valgrind for compare --instructions: from the .deb files in DIR (which action.yml's cache step
# restores), else from apt, keeping the .deb files it downloads in DIR for the cache to save. apt-get
# update alone takes a minute or two on a hosted runner; a restored cache skips it.
set -euo pipefail
debs=$1
if command -v valgrind >/dev/null 2>&1; then
    exit 0
fi
sudo=$([ "$(id -u)" = 0 ] || echo sudo)
mkdir -p "$debs/partial"
if compgen -G "$debs/*.deb" >/dev/null && $sudo dpkg -i "$debs"/*.deb >/dev/null 2>&1 && command -v valgrind >/dev/null; then
    echo "valgrind installed from the cached .deb files"
    exit 0
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends -o Dir::Cache::Archives="$debs" valgrind >/dev/null
$sudo chmod -R a+rX "$debs"
echo "valgrind installed with apt; its .deb files kept in $debs"
