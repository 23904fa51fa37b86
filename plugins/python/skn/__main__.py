"""python3 -m skn bake ...: the skn command's bake on Dask (skn bake --dask hands its arguments here);
see skn/bake.py."""
import sys

from .bake import main

if len(sys.argv) < 2 or sys.argv[1] != "bake":
    sys.stderr.write("usage: python3 -m skn bake FILE --format npy|zarr -o OUT [--dask ADDRESS|local] [options]\n")
    sys.exit(2)
sys.exit(main(sys.argv[2:]))
