"""Scores differential-test cases with OSWorld's own metric functions.

Usage: python driver.py CASES.json SCORES.json

CASES.json is a list of {"module", "func", "result", "expected"?, "options"}
(files as paths, JSON values as themselves, a missing input as null). Each
case is scored by desktop_env.evaluators.metrics.<module>.<func>(result,
expected, **options), or (result, **options) without "expected". SCORES.json
gets, per case, {"score": float} or {"error": "Type: message"} when the
function raised (OSWorld's run records such a metric as failed).

The metric modules are imported one by one, not through the package's
__init__, which imports every module and so every library of every app.
Some modules import, at the top, libraries that only metrics we do not
compare use: easyocr (torch) in docs.py for OCR; librosa, acoustid and
fastdtw in vlc.py for audio. Stand-in modules that refuse to be used take
their place, so those metrics raise instead of scoring.
"""

import importlib
import json
import os
import sys
import types

import desktop_env


def _package(name, path):
    module = types.ModuleType(name)
    module.__path__ = [path]
    sys.modules[name] = module


class _Absent(types.ModuleType):
    """A library left out of the venv: any use of it raises."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        library = self.__name__

        def absent(*args, **kwargs):
            raise RuntimeError(f"{library} is not installed in the parity venv")

        return absent


def _stand_ins():
    for name in ("easyocr", "librosa", "acoustid", "fastdtw"):
        sys.modules[name] = _Absent(name)


def main(cases_path, scores_path):
    base = os.path.dirname(desktop_env.__file__)
    _package("desktop_env.evaluators", os.path.join(base, "evaluators"))
    _package("desktop_env.evaluators.metrics", os.path.join(base, "evaluators", "metrics"))
    _stand_ins()
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    out = []
    for case in cases:
        module = importlib.import_module("desktop_env.evaluators.metrics." + case["module"])
        func = getattr(module, case["func"])
        options = case.get("options") or {}
        try:
            if "expected" in case:
                score = func(case["result"], case["expected"], **options)
            else:
                score = func(case["result"], **options)
            out.append({"score": float(score)})
        except Exception as e:  # an OSWorld metric that raises scores nothing
            out.append({"error": f"{type(e).__name__}: {e}"})
    with open(scores_path, "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
