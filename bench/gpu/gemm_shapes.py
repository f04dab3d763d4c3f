"""The extended GEMM shape list (gemm_shapes.txt beside this file): MxNxK, kind, source.

    python3 bench/gpu/gemm_shapes.py [KIND,...]    prints the shapes (of those kinds), comma-separated

Standard library only: the peer table's merge and the GPU scripts read it anywhere."""
import os
import sys

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_shapes.txt")
# Kinds whose shapes a decoding model calls back to back: the table times them in both regimes.
BACK_TO_BACK_KINDS = ("skinny",)


def load(path=PATH):
    """[(shape "MxNxK", kind, source)] in the file's order; raises ValueError on a malformed line."""
    shapes = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            fields = text.split()
            dims = fields[0].split("x")
            if len(fields) != 3 or len(dims) != 3 or not all(d.isdigit() and int(d) > 0 for d in dims):
                raise ValueError(f"{path}:{number}: expected 'MxNxK kind source', got {text!r}")
            shapes.append((fields[0], fields[1], fields[2]))
    return shapes


def kinds(path=PATH):
    """shape -> kind."""
    return {shape: kind for shape, kind, _ in load(path)}


def main(argv):
    wanted = set(argv[0].split(",")) if argv else None
    print(",".join(shape for shape, kind, _ in load() if wanted is None or kind in wanted))


if __name__ == "__main__":
    main(sys.argv[1:])
