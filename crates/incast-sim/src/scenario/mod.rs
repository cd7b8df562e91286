//! Scenarios: the TOML (or JSON) description of one run, checked at load time into the spec
//! types the engine builds from. docs/scenario.md documents every key, its default and its source
//! in the D3 and D2TCP papers.
//!
//! Loading has two passes, so that every error names the key it is about:
//!
//! ```text
//! text --serde + serde_path_to_error--> file::Raw* --validate, traffic--> spec::Scenario
//!       (syntax, types, unknown keys,            (ranges, host indices, kind-specific
//!        unit strings: units)                     keys, defaults; CSV traces: trace;
//!                                                 OLDI applications: oldi)
//! ```

mod describe;
mod error;
mod file;
mod limits;
mod oldi;
pub mod spec;
mod trace;
mod traffic;
mod units;
mod validate;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use describe::effective_transport;
pub use error::ScenarioError;
pub use spec::*;

use error::join;
use file::RawScenario;

/// Parses a TOML scenario. `base_dir` is the directory relative trace paths are resolved against
/// (the scenario file's directory; `None` resolves them against the working directory).
pub fn parse_toml(text: &str, base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::parse(text).map_err(|e| {
        let position = e.span().map_or_else(String::new, |s| {
            let (line, column) = line_column(text, s.start);
            format!(" at line {line}, column {column}")
        });
        ScenarioError::new("", format!("TOML syntax error{position}: {}", e.message()))
    })?;
    let raw: RawScenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let position = e.inner().span().map_or_else(String::new, |s| {
            let (line, column) = line_column(text, s.start);
            format!(" (line {line}, column {column})")
        });
        key_error(path_string(e.path()), e.inner().message(), &position)
    })?;
    validate::scenario(raw, base_dir)
}

/// Parses a JSON scenario: the same tree as the TOML form, as the Python layer produces it from a
/// dict. `base_dir` resolves relative trace paths as in [`parse_toml`].
pub fn parse_json(text: &str, base_dir: Option<&Path>) -> Result<Scenario, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let raw: RawScenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = path_string(e.path());
        json_error(path, e.inner())
    })?;
    de.end().map_err(|e| json_error(String::new(), &e))?;
    validate::scenario(raw, base_dir)
}

/// Reads and parses a scenario file: JSON if its extension is `.json`, TOML otherwise. Trace
/// paths resolve against the file's directory.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ScenarioError::new(
            "",
            format!("cannot read scenario file {}: {e}", path.display()),
        )
    })?;
    let base_dir = path.parent();
    let is_json = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("json"));
    if is_json {
        parse_json(&text, base_dir)
    } else {
        parse_toml(&text, base_dir)
    }
}

/// Line and column of byte offset `at`, both from 1 (columns count characters).
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    // Back off to a character boundary; spans from the parser always are one.
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Renders a serde path as written in the file: `workload[0].size.min`, or `""` for the root.
fn path_string(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        let key = match segment {
            Segment::Seq { index } => format!("[{index}]"),
            Segment::Map { key } | Segment::Enum { variant: key } => key.clone(),
            Segment::Unknown => "?".to_owned(),
        };
        out = join(&out, &key);
    }
    out
}

/// A deserialization error at `path`. Serde reports a missing key at its parent table; move it
/// onto the key itself so the path names what to add, like it names what to remove.
fn key_error(path: String, message: &str, position: &str) -> ScenarioError {
    let quoted = |rest: &str| rest.split('`').next().map(str::to_owned);
    if let Some(key) = message.strip_prefix("missing field `").and_then(quoted) {
        // The position would be the parent table's, which the path already names.
        return ScenarioError::new(join(&path, &key), "required key is missing");
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some(key) = quoted(rest) {
            let expected = rest
                .get(key.len() + 1..)
                .unwrap_or("")
                .trim_start_matches(", ");
            let expected = expected.replace("there are no fields", "this table takes no keys");
            // serde_path_to_error already ends the path with the unknown key; be robust if not.
            let at_key = path == key || path.ends_with(&format!(".{key}"));
            let path = if at_key { path } else { join(&path, &key) };
            return ScenarioError::new(path, format!("unknown key; {expected}{position}"));
        }
    }
    // Say what serde's integer type names mean.
    let message = message
        .replace("expected u64", "expected a whole number of at least 0")
        .replace(
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        );
    ScenarioError::new(path, format!("{message}{position}"))
}

/// A serde_json error: a data error at `path`, or a syntax error at its line and column.
fn json_error(path: String, e: &serde_json::Error) -> ScenarioError {
    // serde_json appends its position to every message; keep the sentence alone.
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    match e.classify() {
        serde_json::error::Category::Data => key_error(path, message, ""),
        _ => ScenarioError::new(
            "",
            format!(
                "JSON syntax error at line {}, column {}: {message}",
                e.line(),
                e.column()
            ),
        ),
    }
}
