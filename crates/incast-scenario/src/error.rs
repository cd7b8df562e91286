//! The one error type of scenario loading: a key path plus a sentence, so that a user (or the
//! Python layer, which turns it into an exception) can see at once which key of which file is
//! wrong and why; and its counterpart for a scenario that runs, a [`Warning`] about a key whose
//! effect the file may not mean.

use std::fmt;

/// Why a scenario file was rejected.
///
/// `path` names the offending key the way it is written in the file, with list indices in
/// brackets (`"workload[0].size.min"`); it is empty for errors about the whole document (syntax
/// errors, unreadable files). `message` is a full sentence that states the rule broken and, where
/// it helps, the valid alternatives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted key path, e.g. `"workload[0].size.min"`, or `""` for the whole document.
    pub path: String,
    /// What is wrong and what would be accepted.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path` (empty for the whole document).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_keyed(f, &self.path, &self.message)
    }
}

/// How every error that names a key reads (this one and the engine's `ResourceError`):
/// `` `path`: message ``, or the message alone when no key is to blame.
pub fn fmt_keyed(f: &mut fmt::Formatter<'_>, path: &str, message: &str) -> fmt::Result {
    if path.is_empty() {
        f.write_str(message)
    } else {
        write!(f, "`{path}`: {message}")
    }
}

impl std::error::Error for ScenarioError {}

/// What a valid scenario will do that its file may not mean: a section no flow reads, keys no
/// host uses, an ECN-based transport on ports that never mark, an RTO floor far above the
/// network's round trip. The run goes ahead; `incast check`, `incast run`, `incast sweep` and
/// the Python API say so, one line each (docs/scenario.md, "Warnings").
///
/// `path` names the key the warning is about as [`ScenarioError`] does; `message` is one
/// sentence that says what will happen and what to set instead.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Warning {
    /// Dotted key path, e.g. `"switch.ecn_threshold"`.
    pub path: String,
    /// What the run will do, and the key to set otherwise.
    pub message: String,
}

impl Warning {
    /// A warning about the key at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Warning { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_keyed(f, &self.path, &self.message)
    }
}

/// Appends `key` to a key path: `join("workload[0]", "size")` is `"workload[0].size"`, and an
/// index key (`"[3]"`) attaches without a dot.
pub(crate) fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_owned()
    } else if key.starts_with('[') {
        format!("{base}{key}")
    } else {
        format!("{base}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_quotes_the_path() {
        let e = ScenarioError::new("workload[0].size.min", "invalid size \"2XB\"");
        assert_eq!(
            e.to_string(),
            "`workload[0].size.min`: invalid size \"2XB\""
        );
    }

    #[test]
    fn display_without_path_is_the_message() {
        assert_eq!(ScenarioError::new("", "no file").to_string(), "no file");
    }

    #[test]
    fn join_handles_root_keys_and_indices() {
        assert_eq!(join("", "seed"), "seed");
        assert_eq!(join("workload", "[2]"), "workload[2]");
        assert_eq!(join("workload[2]", "size"), "workload[2].size");
    }
}
