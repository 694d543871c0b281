"""`import cisparse` reads the library's tuning options from the one
variable CISPARSE_OPTIONS="name=value,..." (cis_options_from_env, as the
tool does at start): a good list is set, a bad value or a misspelt name is
an ImportError naming the variable and the option, and the per-option
variables of old (CISPARSE_SIGMA, ...) are not read. NCCL_NVLS_ENABLE is 0
after the import unless the user set it (the library sets no environment).
Each case runs in a fresh interpreter (this one imported cisparse already)."""
import os
import subprocess
import sys

REPORT = """
import os
import cisparse
from cisparse import _lib
lib = _lib.lib
lib.cis_option_get.restype = _lib.c_char_p
print(repr((lib.cis_option_get(b"sigma"), lib.cis_option_get(b"hyb_g"), os.environ.get("NCCL_NVLS_ENABLE"))))
"""


def fresh(**env_changes):
    """(returncode, stdout's last line, stderr) of a fresh `import cisparse`
    in this environment changed by env_changes (None removes a variable)."""
    env = dict(os.environ)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    out = subprocess.run([sys.executable, "-c", REPORT], capture_output=True, text=True, env=env)
    lines = out.stdout.strip().splitlines()
    return out.returncode, lines[-1] if lines else "", out.stderr


def test_good_list_is_set():
    rc, out, err = fresh(CISPARSE_OPTIONS="sigma=unfused,hyb_g=8", CISPARSE_SIGMA=None, NCCL_NVLS_ENABLE=None)
    assert rc == 0, err
    assert out == "(b'unfused', b'8', '0')", out


def test_misspelt_name_is_an_import_error():
    rc, out, err = fresh(CISPARSE_OPTIONS="sigma=unfused,sigmaa=fused")
    assert rc != 0
    assert "ImportError" in err and "CISPARSE_OPTIONS" in err and "unknown option 'sigmaa'" in err, err


def test_bad_value_is_an_import_error():
    rc, out, err = fresh(CISPARSE_OPTIONS="hyb_g=64")
    assert rc != 0
    assert "ImportError" in err and "CISPARSE_OPTIONS: hyb_g = '64'" in err, err


def test_old_variables_are_not_read():
    rc, out, err = fresh(CISPARSE_OPTIONS=None, CISPARSE_SIGMA="fast")
    assert rc == 0, err
    assert out.startswith("(None, None, "), out


def test_nvls_default_and_users_choice():
    rc, out, err = fresh(CISPARSE_OPTIONS=None, NCCL_NVLS_ENABLE=None)
    assert rc == 0 and out.endswith(", '0')"), (out, err)
    rc, out, err = fresh(CISPARSE_OPTIONS=None, NCCL_NVLS_ENABLE="1")
    assert rc == 0 and out.endswith(", '1')"), (out, err)
