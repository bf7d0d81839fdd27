#!/bin/sh
# The Debian package (README "Installing"): cpack packs this build tree; extracted into an empty folder,
# its npusim prints its version and runs a zoo model with the configs it ships, and python3 imports the
# npusim package from the folder Debian's python3 searches under /usr.
set -eu
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$build" && cpack -G DEB -B "$tmp/pkg" > "$tmp/cpack.log") || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/pkg/npusim_*_amd64.deb)
dpkg-deb -f "$deb" Package Version Architecture
dpkg-deb -f "$deb" Depends | grep -q libsystemc || { echo "Depends lacks libsystemc"; exit 1; }
if [ -d "$build/python/npusim" ]; then
  dpkg-deb -f "$deb" Depends | grep -q 'python3 (>= 3' || { echo "Depends lacks python3"; exit 1; }
  dpkg-deb -f "$deb" Recommends | grep -q 'python3-numpy, python3-pandas' ||
    { echo "Recommends lacks python3-numpy, python3-pandas"; exit 1; }
fi
dpkg-deb -x "$deb" "$tmp/root"
root=$tmp/root/usr
for f in bin/npusim share/npusim/configs/npu/default.json share/doc/npusim/README.md \
         lib/python3/dist-packages/npusim/__init__.py; do
  test -e "$root/$f" || { echo "missing from the package: /usr/$f"; exit 1; }
done
# Stripped: no DWARF sections in the shipped executable.
if readelf -S "$root/bin/npusim" | grep -q '\.debug_info'; then echo "bin/npusim is not stripped"; exit 1; fi
"$root/bin/npusim" --version | grep -q '^npusim ' || { echo "no version line"; exit 1; }
"$root/bin/npusim" run --help | grep -q "$root/share/npusim/configs/npu/default.json" ||
  { echo "the packaged npusim does not resolve its own default config"; exit 1; }
mkdir "$tmp/work"
cd "$tmp/work"
"$root/bin/npusim" run --model zoo:mobilenet_v2_quant8 --set npu.functional=false --out r > run.log
test -s r/stats.json || { echo "no stats written"; cat run.log; exit 1; }
PYTHONPATH="$root/lib/python3/dist-packages" python3 -c "import npusim, sys; sys.exit(0 if npusim.__file__.startswith('$root') else 1)"
echo "package ok: $(basename "$deb")"
