//! `check_python_file_by_test_suite` (`vscode.py`): test files written
//! here, each in a folder of its own beside "result" modules it imports
//! and data it reads, returning every kind of verdict, raising, failing to
//! import, missing their function; missing and non-file test paths.

use std::path::Path;

use serde_json::json;
use ufo_eval::checkers::Got;

use crate::harness::{Case, compare};

/// A folder `name` with the test file `test` and a result module beside
/// it (its name unique per folder: OSWorld's driver imports all cases in
/// one process, where a module name is cached).
fn suite(root: &Path, name: &str, test: &str) -> (Got, Got) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let module = format!("game_{}", name.replace('-', "_"));
    std::fs::write(
        dir.join(format!("{module}.py")),
        "def score():\n    return 3\n",
    )
    .unwrap();
    std::fs::write(dir.join("data.txt"), "42\n").unwrap();
    let test = test.replace("GAME", &module);
    std::fs::write(dir.join("test_suite.py"), test).unwrap();
    (
        Got::File(dir.join(format!("{module}.py"))),
        Got::File(dir.join("test_suite.py")),
    )
}

#[test]
fn check_python_file_by_test_suite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tests: &[(&str, &str)] = &[
        ("true", "def test():\n    return True\n"),
        ("false", "def test():\n    return False\n"),
        ("half", "def test():\n    return 0.5\n"),
        ("two", "def test():\n    return 2\n"),
        ("negative", "def test():\n    return -3\n"),
        ("nan", "def test():\n    return float('nan')\n"),
        ("inf", "def test():\n    return float('inf')\n"),
        ("text", "def test():\n    return 'yes'\n"),
        ("empty-list", "def test():\n    return []\n"),
        ("none", "def test():\n    pass\n"),
        ("raises", "def test():\n    raise ValueError('bug')\n"),
        (
            "assert",
            "def test():\n    assert 1 == 2\n    return True\n",
        ),
        ("syntax", "def test(:\n    return True\n"),
        (
            "import-error",
            "import no_such_module_here\ndef test():\n    return True\n",
        ),
        (
            "module-raises",
            "raise RuntimeError('at import')\ndef test():\n    return True\n",
        ),
        ("no-test", "def check():\n    return True\n"),
        ("not-callable", "test = 5\n"),
        (
            "imports-result",
            "from GAME import score\ndef test():\n    return score() == 3\n",
        ),
        (
            "imports-result-wrong",
            "from GAME import score\ndef test():\n    return score() == 4\n",
        ),
        (
            "reads-cwd",
            "def test():\n    return open('data.txt').read().strip() == '42'\n",
        ),
        (
            "writes-cwd",
            "def test():\n    open('out.txt', 'w').write('x')\n    return open('out.txt').read() == 'x'\n",
        ),
        (
            "prints",
            "def test():\n    for i in range(2000):\n        print('line', i)\n    return True\n",
        ),
        ("custom", "def check_it():\n    return 0.25\n"),
    ];
    let mut cases = Vec::new();
    for (name, test) in tests {
        let (result, expected) = suite(root, name, test);
        cases.push(Case::new(*name, result.clone(), expected.clone()));
        if *name == "custom" {
            cases.push(
                Case::new("custom name", result, expected)
                    .with(json!({"test_function_name": "check_it"})),
            );
        }
    }
    let (result, _) = suite(root, "elsewhere", "def test():\n    return True\n");
    cases.push(Case::new(
        "a missing test file",
        result.clone(),
        Got::File(root.join("absent.py")),
    ));
    cases.push(Case::new(
        "a folder as the test file",
        result,
        Got::File(root.join("elsewhere")),
    ));
    compare("vscode", "check_python_file_by_test_suite", &cases);
}
