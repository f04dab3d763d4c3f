"""The Python side of scripts/gpu/kt-examples.sh, one command each:

    python3 kt_examples_rows.py spec SPEC SCRATCH [KNOB=VALUE ...]
        pins each KNOB of the imported spec to VALUE (a JSON value; Kernel Tuner's side pins it
        alike), makes the buffers named in SCRATCH (space-separated) uncompared scratch, writes
        SPEC back and prints what the tune is checked against: the reference entry, "default"
        (the default config) or "none"
    python3 kt_examples_rows.py row NAME FOLDER SCRATCH
        prints the table's row of one example from FOLDER's cutune.json and kt.json: cutune's
        best, Kernel Tuner's, their ratio and what cutune checked against

Standard library only (the GPU image's python3); tested by tests/tools/kt_examples_rows_test.py.
"""
import json
import sys


def pin_and_scratch(spec, scratch, pins):
    """`spec` with each "knob=value" of `pins` held at its value and the `scratch` buffers
    uncompared; returns what the tune is checked against."""
    for pin in pins:
        name, value = pin.split("=", 1)
        knob = next((k for k in spec["knobs"] if k["name"] == name), None)
        if knob is None:
            raise SystemExit("kt_examples_rows.py: no knob %s to pin (knobs: %s)"
                             % (name, ", ".join(k["name"] for k in spec["knobs"])))
        knob["choices"], knob["default"] = [json.loads(value)], json.loads(value)
    for buffer in spec["buffers"]:
        if buffer["name"] in scratch:
            buffer["role"] = "scratch"
            buffer.pop("fill", None)
    compared = any(b.get("role") in ("output", "inout") for b in spec["buffers"])
    return spec["check"]["entry"] if "check" in spec else "default" if compared else "none"


def load_json_tail(path):
    """The JSON object a tool printed after any other output, or {} when there is none."""
    try:
        text = open(path).read()
        return json.loads(text[text.index("{"):])
    except (OSError, ValueError):
        return {}


def row(name, cutune, kt, scratch):
    best = (cutune.get("best") or {}).get("time_ms")
    kt_best = kt.get("best_ms")
    ratio = "%.2f" % (best / kt_best) if best and kt_best else "-"
    against = cutune.get("checked_against")
    wrong = (cutune.get("outcomes") or {}).get("wrong_result", 0)
    checked = ("against " + against if against else "not checked") + (
        " (%d wrong)" % wrong if wrong else "") + (" (%s not compared)" % scratch if scratch else "")
    kt_wrong = " (Kernel Tuner: %d wrong)" % kt["wrong"] if kt.get("wrong") else ""
    return "%-22s %12s %12s %7s %s%s" % (name, "%.4f" % best if best else "-",
                                         "%.4f" % kt_best if kt_best else "-", ratio, checked,
                                         kt_wrong)


def main(argv):
    if len(argv) >= 3 and argv[0] == "spec":
        path = argv[1]
        spec = json.load(open(path))
        against = pin_and_scratch(spec, argv[2].split(), argv[3:])
        json.dump(spec, open(path, "w"), indent=2)
        print(against)
    elif len(argv) == 4 and argv[0] == "row":
        name, folder, scratch = argv[1:]
        print(row(name, load_json_tail(folder + "/cutune.json"), load_json_tail(folder + "/kt.json"),
                  scratch))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
