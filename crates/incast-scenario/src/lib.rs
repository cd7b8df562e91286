//! incast-scenario: the TOML (or JSON) description of one run, checked at load time into the
//! spec types the engine (incast-sim) builds from. docs/scenario.md documents every key, its
//! default and its source in the D3 and D2TCP papers.
//!
//! Loading has two passes, so that every error names the key it is about:
//!
//! ```text
//! text --serde + serde_path_to_error--> file::Raw* --validate, traffic--> spec::Scenario
//!       (syntax, types, unknown keys,            (ranges, host indices, kind-specific
//!        unit strings: units)                     keys, defaults; CSV traces: trace;
//!                                                 OLDI applications: oldi; [output] and
//!                                                 its port patterns: output, port_pattern;
//!                                                 shared checks: check)
//! ```
//!
//! What a valid scenario will do that its file may not mean (a section no flow reads, DCTCP on
//! ports that never mark, Linux's RTOs on a 10 Gbps fabric) is not an error: validation lists it
//! in [`Scenario::warnings`] (module `warnings`, docs/scenario.md "Warnings").
//!
//! One check needs the engine: whether an `[output]` port pattern names a port, for only the
//! engine knows what the ports of a topology are called. The parsers take those names through
//! [`PortNames`]; `incast_sim::scenario` wraps them with the engine's, and is what callers use.

mod check;
mod context;
mod describe;
mod ecn;
mod error;
mod file;
pub mod footprint;
mod graph;
mod limits;
pub mod named_sizes;
mod names;
mod oldi;
mod output;
pub mod port_pattern;
mod protocols;
mod registry;
mod run;
mod scenario;
pub mod spec;
mod text;
mod trace;
mod traffic;
mod units;
mod validate;
mod warnings;
mod workloads;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;

use std::path::Path;

pub use describe::{effective_sections, effective_transport};
pub use error::{fmt_keyed, ScenarioError, Warning};
pub use output::PortNames;
pub use trace::{read_file as read_trace_file, TraceRows};
pub use traffic::named_distribution;
pub use protocols::d2tcp::effective_d2tcp;
pub use protocols::d3::{effective_d3, D3Spec, D3Variant, CAPACITY_MAX, CAPACITY_MIN};
pub use protocols::homa::{HomaModel, HomaPackets, HomaSpec};
pub use protocols::pdq::PdqSpec;
pub use protocols::ndp::NdpSpec;
pub use protocols::pfabric::{PfabricSpec, PFABRIC_DEFAULT_BUFFER_BYTES};
pub use protocols::tcppr::TcpPrSpec;
pub use protocols::ProtocolSections;
pub use scenario::Scenario;
pub use spec::*;
pub use workloads::{FlowBurstWorkload, FlowListWorkload, LongFlowsWorkload, PoissonWorkload};

use error::join;
use text::utf8_text;
use file::RawScenario;

/// Parses a TOML scenario. `base_dir` is the directory relative trace paths are resolved against
/// (the scenario file's directory; `None` resolves them against the working directory);
/// `port_names` names the ports `[output]`'s port patterns must match.
pub fn parse_toml(text: &str, base_dir: Option<&Path>, port_names: &dyn PortNames) -> Result<Scenario, ScenarioError> {
    let tree = document(text, Format::Toml)?;
    let raw = raw_scenario(&tree.to_string(), |path| {
        toml_position(text, path).map_or_else(String::new, |(line, column)| format!(" (line {line}, column {column})"))
    })?;
    validate::scenario(raw, base_dir, port_names)
}

/// The file types of a scenario read from JSON text, errors named by their path and placed by
/// `position` (a path's place in the file, or `""`): the one schema pass of both formats, a TOML
/// file read as the JSON of its tree ([`document`]). Not one pass per format: toml's and
/// serde_json's deserializers each instantiated every `Deserialize` of the file types, and the
/// two made this crate 49 CPU-seconds of the release build against 27 for one (2026-11-29,
/// `cargo build --release -p incast-scenario`), and the whole-program link longer. Not from a
/// `serde_json::Value` either: a list of 200,000 flows took 3 times as long and 2.4 times the
/// memory that way. serde_json reads floats exactly (its `float_roundtrip` feature), so the JSON
/// of a TOML file's tree holds the numbers the file wrote.
fn raw_scenario(text: &str, position: impl Fn(&serde_path_to_error::Path) -> String) -> Result<RawScenario, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let raw = serde_path_to_error::deserialize(&mut de).map_err(|e| json_error(path_string(e.path()), e.inner(), &position(e.path())))?;
    de.end().map_err(|e| json_error(String::new(), &e, ""))?;
    Ok(raw)
}

/// Where the value at `path` starts in TOML document `text`, as (line, column): the position a
/// schema error names. The deepest value of the path the file has, or `None` if it has none.
fn toml_position(text: &str, path: &serde_path_to_error::Path) -> Option<(usize, usize)> {
    use serde_path_to_error::Segment;
    let root = toml::de::DeValue::Table(toml::de::DeTable::parse(text).ok()?.into_inner());
    let mut value = &root;
    let mut at = None;
    for segment in path.iter() {
        let next = match segment {
            Segment::Map { key } => value.get(key.as_str()),
            Segment::Seq { index } => value.get(*index),
            // An externally tagged variant is a key of the table in the file, when it is one.
            Segment::Enum { variant } => match value.get(variant.as_str()) {
                Some(next) => Some(next),
                None => continue,
            },
            Segment::Unknown => None,
        };
        let Some(next) = next else { break };
        at = Some(next.span().start);
        value = next.get_ref();
    }
    at.map(|at| line_column(text, at))
}

/// A TOML syntax error, at its line and column.
fn toml_syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let position = e.span().map_or_else(String::new, |s| {
        let (line, column) = line_column(text, s.start);
        format!(" at line {line}, column {column}")
    });
    ScenarioError::new("", format!("TOML syntax error{position}: {}", e.message()))
}

/// Parses a JSON scenario: the same tree as the TOML form, as the Python layer produces it from a
/// dict. `base_dir` and `port_names` are as in [`parse_toml`].
pub fn parse_json(text: &str, base_dir: Option<&Path>, port_names: &dyn PortNames) -> Result<Scenario, ScenarioError> {
    // serde reads a struct from an array too (fields by position): refuse anything but an object
    // before it does, so that `[1, 2]` is not reported as a bad `topology`.
    if let Some(at) = text.find(|c: char| !c.is_whitespace()).filter(|&at| !text[at..].starts_with('{')) {
        let (line, column) = line_column(text, at);
        return Err(ScenarioError::new(
            "",
            format!("a JSON scenario is an object of sections, at line {line}, column {column}"),
        ));
    }
    let raw = raw_scenario(text, |_| String::new())?;
    validate::scenario(raw, base_dir, port_names)
}

/// Reads and parses a scenario file: JSON if its extension is `.json`, TOML otherwise. Trace
/// paths resolve against the file's directory; `port_names` is as in [`parse_toml`].
pub fn load(path: &Path, port_names: &dyn PortNames) -> Result<Scenario, ScenarioError> {
    let cannot_read = |e: std::io::Error| {
        ScenarioError::new(
            "",
            format!("cannot read scenario file {}: {e}", path.display()),
        )
    };
    let bytes = std::fs::read(path).map_err(cannot_read)?;
    let text = utf8_text(&bytes)
        .map_err(|m| ScenarioError::new("", format!("scenario file {}: {m}", path.display())))?;
    // `Path::new("s.toml").parent()` is `""`: the working directory.
    let base_dir = path.parent().filter(|dir| !dir.as_os_str().is_empty());
    if is_json(path) {
        parse_json(text, base_dir, port_names)
    } else {
        parse_toml(text, base_dir, port_names)
    }
}

/// The format [`load`] reads a file in: JSON for a `.json` extension (any case), else TOML.
fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("json"))
}

/// A document's syntax tree as the engine parses it, before any schema check: what Python's
/// `incast._core.document` returns, so that Python reads scenario files with the engine's parser
/// and never accepts or refuses a file the engine would not. TOML datetimes become their text.
///
/// A syntax error is the [`ScenarioError`] [`parse_toml`] or [`parse_json`] would give; a TOML
/// `nan` or `inf`, which JSON cannot hold, is an error naming its key (no scenario key takes one),
/// in the words of the checks of numbers (`check::finite`).
pub fn document(text: &str, format: Format) -> Result<serde_json::Value, ScenarioError> {
    use serde::Deserialize;
    match format {
        Format::Toml => {
            let table = toml::de::DeTable::parse(text).map_err(|e| toml_syntax_error(text, &e))?;
            toml_to_json(&toml::de::DeValue::Table(table.into_inner()), "")
        }
        Format::Json => {
            let mut de = serde_json::Deserializer::from_str(text);
            let value = serde_json::Value::deserialize(&mut de)
                .and_then(|v| de.end().map(|()| v))
                .map_err(|e| json_error(String::new(), &e, ""))?;
            Ok(value)
        }
    }
}

/// The two scenario formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// TOML (the `toml` crate: TOML 1.1).
    Toml,
    /// JSON, the form the Python layer sends a dict in.
    Json,
}

/// A value of TOML's parse tree as JSON; `path` names it in an error. An integer keeps the
/// range the file types read (`i64` and `u64`: a seed may be any `u64`).
fn toml_to_json(value: &toml::de::DeValue<'_>, path: &str) -> Result<serde_json::Value, ScenarioError> {
    use serde_json::Value as Json;
    use toml::de::DeValue;
    Ok(match value {
        DeValue::String(s) => Json::String(s.to_string()),
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
            .map(Json::from)
            .or_else(|_| u64::from_str_radix(i.as_str(), i.radix()).map(Json::from))
            .map_err(|_| {
                let range = format!("from {} to {}", i64::MIN, u64::MAX);
                ScenarioError::new(path, format!("must be a whole number {range} (found {i})"))
            })?,
        DeValue::Float(f) => {
            // A float too large for an f64 parses as infinite.
            let v = check::finite(path, f.as_str().parse().unwrap_or(f64::NAN))?;
            Json::Number(serde_json::Number::from_f64(v).expect("a finite number is a JSON number"))
        }
        DeValue::Boolean(b) => Json::Bool(*b),
        DeValue::Datetime(d) => Json::String(d.to_string()),
        DeValue::Array(items) => Json::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| toml_to_json(item.get_ref(), &join(path, &format!("[{i}]"))))
                .collect::<Result<_, _>>()?,
        ),
        DeValue::Table(table) => Json::Object(
            table
                .iter()
                .map(|(key, item)| {
                    let key: &str = key.get_ref();
                    // A key that is not bare is quoted, as TOML writes it: `vary.grid."d3.alpha"`.
                    let bare = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                    let segment = if bare { key.to_owned() } else { format!("{key:?}") };
                    let value = toml_to_json(item.get_ref(), &join(path, &segment))?;
                    Ok((key.to_owned(), value))
                })
                .collect::<Result<_, _>>()?,
        ),
    })
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

/// A serde_json error: a data error at `path` (at `position` in the file, or `""`), or a syntax
/// error at its line and column.
fn json_error(path: String, e: &serde_json::Error, position: &str) -> ScenarioError {
    // serde_json appends its position to every message; keep the sentence alone.
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    match e.classify() {
        serde_json::error::Category::Data => key_error(path, message, position),
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
