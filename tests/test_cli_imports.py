"""The command line imports only the standard library until a command runs.

``smiclust --help`` and argument errors should be quick: building the parser
imports ``smiclust.cli``, ``smiclust.commands`` and each command's module for
its ``add_parser``, and nothing else; numpy, scipy, scikit-learn, joblib,
pandas and matplotlib are imported inside the commands' ``run``.
"""

import json
import subprocess
import sys

import pytest

CODE = """
import json, sys
import smiclust
before = set(sys.modules)
from smiclust.cli import build_parser
build_parser()
new = sorted(set(sys.modules) - before)
print(json.dumps(new))
"""


def test_building_the_parser_imports_only_the_standard_library():
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True,
                          text=True, check=True)
    new = json.loads(proc.stdout)
    ours = [m for m in new if m.split(".")[0] == "smiclust"]
    others = [m for m in new if m.split(".")[0] != "smiclust"
              and m.split(".")[0].lstrip("_") not in sys.stdlib_module_names
              and m.split(".")[0] not in sys.stdlib_module_names]
    assert others == []
    assert all(m == "smiclust.cli" or m.startswith("smiclust.commands")
               for m in ours), ours


def test_importing_smiclust_loads_its_names_on_first_use():
    code = (
        "import sys, smiclust\n"
        "assert 'sklearn' not in sys.modules and 'scipy' not in sys.modules\n"
        "assert 'numpy' not in sys.modules\n"
        "from smiclust import SMIClustering, sample_links\n"
        "assert 'sklearn' in sys.modules\n"
        "assert SMIClustering is smiclust.SMIClustering\n"
        "assert set(smiclust.__all__) <= set(dir(smiclust))\n"
        "print(sorted(n for n in smiclust.__all__ if not hasattr(smiclust, n)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
    bad = subprocess.run([sys.executable, "-c", "import smiclust; smiclust.nope"],
                         capture_output=True, text=True)
    assert "module 'smiclust' has no attribute 'nope'" in bad.stderr


@pytest.mark.parametrize("module", ["datasets", "io", "constraints", "neighbors",
                                    "kernels"])
def test_public_modules_are_attributes_of_the_package_in_a_fresh_interpreter(module):
    # whatever was imported before: smiclust.io after `import smiclust` alone
    code = (f"import sys, smiclust\n"
            f"assert 'smiclust.{module}' not in sys.modules\n"
            f"m = smiclust.{module}\n"
            f"assert m is sys.modules['smiclust.{module}']\n"
            f"assert '{module}' in dir(smiclust)\n"
            f"assert '_estimator' not in dir(smiclust)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
