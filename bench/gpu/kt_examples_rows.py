"""The Python side of scripts/gpu/kt-examples.sh, one command each:

    python3 kt_examples_rows.py spec SPEC BUFFERS [KNOB=VALUE ...]
        pins each KNOB of the imported spec to VALUE (a JSON value; Kernel Tuner's side pins it
        alike), gives each buffer of BUFFERS (space-separated NAME=ROLE or NAME=FILL) its role
        (partial_sums: compared by its total) or fill (positive), writes
        SPEC back and prints what the tune is checked against: the reference entry, "default"
        (the default config) or "none"
    python3 kt_examples_rows.py pinned SPEC KT_JSON OUT
        writes OUT: SPEC whose default config is Kernel Tuner's checked best (KT_JSON's
        best_config), so that a one-config tune of OUT times that config in cutune's harness;
        fails when there is none
    python3 kt_examples_rows.py header
        prints the table's header
    python3 kt_examples_rows.py row NAME FOLDER BUFFERS
        prints the table's row of one example from FOLDER's cutune.json, kt.json and
        kt_in_cutune.json: cutune's best, Kernel Tuner's by its own timer and by cutune's, the
        ratio of the two timed by cutune's harness, and what each side was checked against

Standard library only (the GPU image's python3); tested by tests/tools/kt_examples_rows_test.py.
"""
import json
import sys


FILLS = ("random", "zero", "positive")


def summed(buffers):
    """The names that `buffers` ("name=role_or_fill" items) makes partial_sums."""
    return [b.split("=", 1)[0] for b in buffers if b.endswith("=partial_sums")]


def pin_and_edit(spec, buffers, pins):
    """`spec` with each "knob=value" of `pins` held at its value and each "name=role_or_fill" of
    `buffers` applied; returns what the tune is checked against."""
    for pin in pins:
        name, value = pin.split("=", 1)
        knob = next((k for k in spec["knobs"] if k["name"] == name), None)
        if knob is None:
            raise SystemExit("kt_examples_rows.py: no knob %s to pin (knobs: %s)"
                             % (name, ", ".join(k["name"] for k in spec["knobs"])))
        knob["choices"], knob["default"] = [json.loads(value)], json.loads(value)
    edits = dict(b.split("=", 1) for b in buffers)
    for buffer in spec["buffers"]:
        value = edits.pop(buffer["name"], None)
        if value in FILLS:
            buffer["fill"] = value
        elif value is not None:
            buffer["role"] = value
            buffer.pop("fill", None)
    if edits:
        raise SystemExit("kt_examples_rows.py: no buffer %s (buffers: %s)"
                         % (", ".join(edits), ", ".join(b["name"] for b in spec["buffers"])))
    compared = any(b.get("role") in ("output", "inout", "partial_sums") for b in spec["buffers"])
    return spec["check"]["entry"] if "check" in spec else "default" if compared else "none"


def load_json_tail(path):
    """The JSON object a tool printed after any other output, or {} when there is none."""
    try:
        text = open(path).read()
        return json.loads(text[text.index("{"):])
    except (OSError, ValueError):
        return {}


def row(name, cutune, kt, kt_in_cutune, buffers):
    """cutune's best, Kernel Tuner's best by its timer and by cutune's, and cutune's over
    Kernel Tuner's as cutune's harness times both (below 1: cutune's config is faster)."""
    best = (cutune.get("best") or {}).get("time_ms")
    kt_best = kt.get("best_ms")
    kt_timed = (kt_in_cutune.get("best") or {}).get("time_ms")
    ratio = "%.2f" % (best / kt_timed) if best and kt_timed else "-"
    against = cutune.get("checked_against")
    wrong = (cutune.get("outcomes") or {}).get("wrong_result", 0)
    checked = ("against " + against if against else "not checked") + (
        " (%d wrong)" % wrong if wrong else "") + "".join(
            " (%s by its sum)" % b for b in summed(buffers))
    kt_notes = [n % kt[k] for k, n in (("wrong", "%d wrong"), ("rejected", "%d fastest rejected"))
                if kt.get(k)]
    kt_checked = " (Kernel Tuner: %s)" % ", ".join(kt_notes) if kt_notes else ""

    def ms(value):
        return "%.4f" % value if value else "-"
    return "%-22s %10s %10s %12s %7s %s%s" % (name, ms(best), ms(kt_best), ms(kt_timed), ratio,
                                             checked, kt_checked)


HEADER = "%-22s %10s %10s %12s %7s %s" % ("example", "cutune ms", "KT ms", "KT by cutune",
                                          "ratio", "checked")


def pinned(spec, kt):
    """`spec` whose default config is Kernel Tuner's checked best. The knobs keep their choices:
    a reference kernel's config (the spec's check) may use values the tuned kernel's best does not
    (convolution_naive's 16x16 blocks), and must stay legal."""
    config = kt.get("best_config")
    if not config:
        raise SystemExit("kt_examples_rows.py: Kernel Tuner has no checked best to time")
    for knob in spec["knobs"]:
        if knob["name"] in config:
            knob["default"] = config[knob["name"]]
    spec.pop("seeds", None)  # a one-config tune measures the default, which a seed would replace
    return spec


def main(argv):
    if len(argv) >= 3 and argv[0] == "spec":
        path = argv[1]
        spec = json.load(open(path))
        against = pin_and_edit(spec, argv[2].split(), argv[3:])
        json.dump(spec, open(path, "w"), indent=2)
        print(against)
    elif len(argv) == 4 and argv[0] == "pinned":
        spec = pinned(json.load(open(argv[1])), load_json_tail(argv[2]))
        json.dump(spec, open(argv[3], "w"), indent=2)
    elif argv == ["header"]:
        print(HEADER)
    elif len(argv) == 4 and argv[0] == "row":
        name, folder, buffers = argv[1:]
        print(row(name, *(load_json_tail("%s/%s.json" % (folder, tool))
                          for tool in ("cutune", "kt", "kt_in_cutune")), buffers.split()))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
