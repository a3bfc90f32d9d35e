//! Clues to a term's role from names alone: what a called function, a field or key, or a
//! line's leading key says about the values it takes (see [`super::syntax`]).

use super::{Pattern, TermRole};

/// What a call says about its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CallClue {
    pub(super) role: Option<TermRole>,
    /// The role applies to the first argument only.
    pub(super) first_only: bool,
    pub(super) pattern: Pattern,
}

const TESTIFY: &[&str] = &[
    "Equal",
    "EqualValues",
    "Exactly",
    "NotEqual",
    "Contains",
    "NotContains",
    "ElementsMatch",
    "Subset",
    "Len",
    "True",
    "False",
    "Nil",
    "NotNil",
    "Empty",
    "NotEmpty",
    "Error",
    "ErrorIs",
    "ErrorAs",
    "ErrorContains",
    "EqualError",
    "NoError",
    "Regexp",
    "JSONEq",
    "YAMLEq",
    "Zero",
    "NotZero",
    "Greater",
    "Less",
    "InDelta",
    "Panics",
];

const TEST_NAME_CALLS: &[&str] = &[
    "describe",
    "it",
    "test",
    "context",
    "suite",
    "specify",
    "fdescribe",
    "fit",
    "xdescribe",
    "xit",
    "xtest",
    "xcontext",
];

const REGEX_CALLS: &[&str] = &[
    "MustCompile",
    "MustCompilePOSIX",
    "MatchString",
    "RegExp",
    "toMatch",
    "Regexp",
    "NotRegexp",
    "MatchRegexp",
    "assertRegex",
    "assertNotRegex",
    "assertRegexpMatches",
    "assertNotRegexpMatches",
    "assertRaisesRegex",
    "assertRaisesRegexp",
    "assertWarnsRegex",
];

const PYTHON_RE_CALLS: &[&str] = &[
    "compile",
    "search",
    "match",
    "fullmatch",
    "findall",
    "finditer",
    "sub",
    "subn",
    "split",
];

const GLOB_CALLS: &[&str] = &[
    "fnmatch",
    "fnmatchcase",
    "glob",
    "iglob",
    "Glob",
    "minimatch",
];

const FIXTURE_CALLS: &[&str] = &[
    "filepath.join",
    "path.join",
    "os.path.join",
    "path.resolve",
    "path",
    "pathlib.path",
    "os.create",
    "os.stat",
];

pub(super) fn call_clue(callee: &str) -> CallClue {
    let compact: String = callee.chars().filter(|c| !c.is_whitespace()).collect();
    let first = compact.split(['.', '(', '[']).next().unwrap_or("");
    let last = compact.rsplit('.').next().unwrap_or("");
    let last_lower = last.to_ascii_lowercase();
    let compact_lower = compact.to_ascii_lowercase();
    let mut clue = CallClue {
        role: None,
        first_only: false,
        pattern: Pattern::No,
    };
    if REGEX_CALLS.contains(&last)
        || (first == "re" && PYTHON_RE_CALLS.contains(&last))
        || compact == "regexp.Compile"
    {
        clue.pattern = Pattern::Regex;
    } else if GLOB_CALLS.contains(&last) || compact == "filepath.Match" || compact == "path.Match" {
        clue.pattern = Pattern::Glob;
    }
    if matches!(compact.as_str(), "require" | "import" | "__import__") || last == "import_module" {
        clue.role = Some(TermRole::Import);
    } else if last_lower.starts_with("assert")
        // Mocks' expectations are assertions too: gock's `MatchHeader`, nock's `matchHeader`,
        // sqlmock's `ExpectQuery`, gomock's `EXPECT`.
        || last_lower.starts_with("match")
        || last_lower.starts_with("expect")
        // Testing Library's queries find what the page must show: `getByText("Saved")`.
        || ["getby", "getallby", "queryby", "queryallby", "findby", "findallby"]
            .iter()
            .any(|query| last_lower.starts_with(query))
        || matches!(
            first,
            "assert" | "require" | "expect" | "Expect" | "Eventually" | "Consistently" | "should"
        )
        || compact.contains("Require().")
        || compact.contains("Assert().")
        || compact.contains(".should")
        || compact.contains("assert.")
        || matches!(
            compact.as_str(),
            "cmp.Diff" | "reflect.DeepEqual" | "pytest.raises" | "pytest.warns" | "deep.Equal"
        )
        || (matches!(first, "s" | "suite") && TESTIFY.contains(&last))
    {
        clue.role = Some(TermRole::Asserted);
    } else if last == "subTest" {
        clue.role = Some(TermRole::TestName);
    } else if (last == "Run" && compact.contains('.'))
        || (TEST_NAME_CALLS.contains(&first) && !compact.ends_with(".each"))
    {
        clue.role = Some(TermRole::TestName);
        clue.first_only = true;
    } else if FIXTURE_CALLS.contains(&compact_lower.as_str())
        || matches!(
            last_lower.as_str(),
            "open"
                | "readfile"
                | "read_file"
                | "readfilesync"
                | "read_text"
                | "read_bytes"
                | "writefile"
                | "writefilesync"
                | "readdir"
                | "readdirsync"
        )
        || last_lower.starts_with("load")
        || last_lower.starts_with("open")
        || last_lower.contains("fixture")
    {
        clue.role = Some(TermRole::FixturePath);
    }
    clue
}

/// Whether `name` starts with the word `prefix` (`exp`, `expErr`, `exp_out`; not `export`).
fn word_prefix(name: &str, prefix: &str) -> bool {
    name.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
        && name[prefix.len()..]
            .chars()
            .next()
            .is_none_or(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether a field or key name says its value is expected or compared: `want*`, `expect*`,
/// `exp`, `out`, `output*`, `result*`.
pub(super) fn wants(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    expects(name)
        || lower.starts_with("output")
        || lower.starts_with("result")
        || word_prefix(name, "out")
}

/// Whether a name says its value is expected: `want*`, `expect*`, `exp`, `expErr`.
pub(super) fn expects(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("want") || lower.starts_with("expect") || word_prefix(name, "exp")
}

const TEST_NAME_KEYS: &[&str] = &[
    "name",
    "desc",
    "description",
    "title",
    "testname",
    "test_name",
    "casename",
    "case_name",
    "scenario",
    "ids",
];

const FIXTURE_KEYS: &[&str] = &[
    "path",
    "file",
    "filename",
    "file_name",
    "filepath",
    "file_path",
    "fixture",
    "fixtures",
    "testdata",
    "dir",
];

/// The role a field, key or variable name gives its value: `want*`, `expected*`, `exp`,
/// `out*`, `result*` asserted; `name`, `desc`, `title`, `ids` a test name; `path`, `file`,
/// `fixture`, `testdata`, `...Path`, `...File` a fixture path.
pub(super) fn name_role(name: &str) -> Option<TermRole> {
    if wants(name) {
        Some(TermRole::Asserted)
    } else if TEST_NAME_KEYS.contains(&name.to_ascii_lowercase().as_str()) {
        Some(TermRole::TestName)
    } else if fixture_key(name) {
        Some(TermRole::FixturePath)
    } else {
        None
    }
}

fn fixture_key(name: &str) -> bool {
    FIXTURE_KEYS.contains(&name.to_ascii_lowercase().as_str())
        || ["Path", "File", "_path", "_file", "Dir", "_dir"]
            .iter()
            .any(|end| name.ends_with(end))
}

/// A string that names a file under a test-data folder.
pub(super) fn fixture_like(text: &str) -> bool {
    !text.contains(char::is_whitespace)
        && text.split('/').count() > 1
        && text
            .split('/')
            .any(|part| super::data::DATA_DIRS.contains(&part))
}

/// The key of a `key: value`, `"key": value`, `key = value` or `key := value` line, and
/// whether it is a field (`:`) rather than a variable.
pub(super) fn line_key(line: &str) -> Option<(&str, bool)> {
    let rest = line.trim_start().trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let key = &rest[..end];
    let after = rest[end..].trim_start_matches(['"', '\'']).trim_start();
    if key.is_empty() {
        None
    } else if after.starts_with(":=") || (after.starts_with('=') && !after.starts_with("==")) {
        Some((key, false))
    } else if after.starts_with(':') {
        Some((key, true))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mock_expectations_are_assertions() {
        for callee in [
            "gock.New(url).MatchHeader",
            "scope.matchHeader",
            "mock.ExpectQuery",
            "m.EXPECT",
            "screen.getByText",
            "findAllByRole",
        ] {
            assert_eq!(call_clue(callee).role, Some(TermRole::Asserted), "{callee}");
        }
    }

    #[test]
    fn call_clues() {
        assert_eq!(call_clue("assert.Equal").role, Some(TermRole::Asserted));
        assert_eq!(call_clue("self.assertEqual").role, Some(TermRole::Asserted));
        assert_eq!(
            call_clue("expect(screen.getByText('x')).toBe").role,
            Some(TermRole::Asserted)
        );
        assert_eq!(call_clue("t.Run").role, Some(TermRole::TestName));
        assert!(call_clue("t.Run").first_only);
        assert_eq!(call_clue("it.each").role, None);
        assert_eq!(call_clue("os.ReadFile").role, Some(TermRole::FixturePath));
        assert_eq!(call_clue("require").role, Some(TermRole::Import));
        assert_eq!(call_clue("regexp.MustCompile").pattern, Pattern::Regex);
        assert_eq!(call_clue("re.compile").pattern, Pattern::Regex);
        assert_eq!(call_clue("fnmatch.fnmatch").pattern, Pattern::Glob);
        assert_eq!(call_clue("fmt.Sprintf").role, None);
    }

    #[test]
    fn field_names() {
        for name in [
            "want",
            "wantErr",
            "expected",
            "exp",
            "expVersion",
            "out",
            "output",
        ] {
            assert!(wants(name), "{name}");
        }
        for name in [
            "export",
            "expiration",
            "outside",
            "name",
            "exécution",
            "名前",
        ] {
            assert!(!wants(name), "{name}");
        }
        assert!(fixture_key("configPath"));
        assert!(!fixture_key("profile"));
        assert!(fixture_like("./testdata/storage/oci.yml"));
        assert!(!fixture_like("testdata"));
    }
}
