//! `incast._core`: the `PyO3` face of the engine. Type and error conversion only; every decision
//! about scenarios and simulation lives in `incast-sim` (scenarios through its `scenario`
//! module, which wraps `incast-scenario`), every convenience in `python/incast/`.
//!
//! Results cross the boundary as columns: each column is one `bytes` object holding the values in
//! native byte order (little-endian on every supported platform), plus an Arrow validity bitmap for
//! nullable columns, so Python builds `pyarrow` arrays with `pa.Array.from_buffers` and never makes
//! one Python object per row. The engine runs with the GIL released, so simulations in several
//! Python threads run in parallel.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use incast_sim::results::{
    Column, ExtraColumn, ExtraValues, QueueSeries, RunResults, Summary, TraceSeries, Values, FLOW_COLUMNS, OFFER_LOG_COLUMNS,
    PORT_COLUMNS, THROUGHPUT_COLUMNS, TRACE_COLUMNS,
};
use incast_sim::{port_sample_columns, trace_columns};
use incast_sim::scenario::{self, Format, Scenario};
use incast_sim::{Progress, ResourceError as EngineResourceError, Simulation};
use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

create_exception!(
    incast._core,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be simulated. `path` names the offending key (for example \
     `workload[0].size.min`), `message` says what is wrong with it; `str()` gives both."
);

create_exception!(
    incast._core,
    ResourceError,
    PyMemoryError,
    "A run that needed more memory than it could get, or more sample rows or flows than \
     `[run]` allows once running. `path` names the key that drove the demand, or is empty; \
     `message` says what ran out; `str()` gives both."
);

/// Builds a Python `ScenarioError` carrying `.path` and `.message`.
fn scenario_error(py: Python<'_>, err: &scenario::ScenarioError) -> PyErr {
    with_key(py, ScenarioError::new_err(err.to_string()), &err.path, &err.message)
}

/// Builds a Python `ResourceError` carrying `.path` and `.message`.
fn resource_error(py: Python<'_>, err: &EngineResourceError) -> PyErr {
    with_key(py, ResourceError::new_err(err.to_string()), &err.path, &err.message)
}

/// `exc` with the attributes `.path` and `.message`.
fn with_key(py: Python<'_>, exc: PyErr, path: &str, message: &str) -> PyErr {
    let value = exc.value(py);
    // Exception instances always accept attributes; a failure here would only lose the extras.
    let _ = value.setattr("path", path);
    let _ = value.setattr("message", message);
    exc
}

/// The Python exception of an engine error.
fn engine_error(py: Python<'_>, err: &incast_sim::Error) -> PyErr {
    match err {
        incast_sim::Error::Scenario(e) => scenario_error(py, e),
        incast_sim::Error::Resource(e) => resource_error(py, e),
    }
}

fn used_after_finish() -> PyErr {
    PyRuntimeError::new_err("this Simulation has already been finished")
}

fn poisoned() -> PyErr {
    PyRuntimeError::new_err("this Simulation stopped on an internal error and cannot continue")
}

/// A simulation in progress, owned by Python.
///
/// The engine sits in a `Mutex<Option<_>>`: the mutex lets `step` run without the GIL while
/// another thread may hold a reference to the same object, the `Option` lets `finish` take it.
#[pyclass(module = "incast._core", name = "Simulation")]
struct PySimulation {
    inner: Mutex<Option<Simulation>>,
    /// The scenario's warnings, as (key, message) pairs.
    warnings: Vec<(String, String)>,
}

/// A scenario parser: text and the directory relative paths resolve against.
type Parser = fn(&str, Option<&Path>) -> Result<Scenario, scenario::ScenarioError>;

/// The parser of `format` ("toml" or "json").
fn parser(format: &str) -> PyResult<Parser> {
    Ok(match format_named(format)? {
        Format::Toml => scenario::parse_toml,
        Format::Json => scenario::parse_json,
    })
}

/// The scenario format named `name` ("toml" or "json").
fn format_named(name: &str) -> PyResult<Format> {
    match name {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        _ => Err(PyValueError::new_err(format!(
            "format must be \"toml\" or \"json\", not {name:?}"
        ))),
    }
}

/// A scenario's warnings as (key, message) pairs, as `_core.check` and `Simulation.warnings`
/// return them.
fn warning_pairs(warnings: &[scenario::Warning]) -> Vec<(String, String)> {
    warnings.iter().map(|w| (w.path.clone(), w.message.clone())).collect()
}

/// `threads` as the Python layer passes it: a count or "auto", as `[run] threads` takes them.
fn threads_named(text: &str) -> PyResult<scenario::Threads> {
    if text.trim().eq_ignore_ascii_case("auto") {
        return Ok(scenario::Threads::Auto);
    }
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=scenario::MAX_THREADS).contains(&n) => Ok(scenario::Threads::Count(n)),
        _ => Err(PyValueError::new_err(format!(
            "threads must be between 1 and {} or \"auto\", not {text:?}",
            scenario::MAX_THREADS
        ))),
    }
}

/// Parses and builds, without the GIL (a large trace takes a while); `seed` and `threads`
/// override the file's. Returns the simulation and the scenario's warnings.
fn build(
    py: Python<'_>,
    text: String,
    format: &str,
    base_dir: Option<PathBuf>,
    seed: Option<u64>,
    threads: Option<&str>,
) -> PyResult<(Simulation, Vec<(String, String)>)> {
    let parse = parser(format)?;
    let threads = threads.map(threads_named).transpose()?;
    py.detach(move || {
        let mut sc = parse(&text, base_dir.as_deref())?;
        if let Some(seed) = seed {
            sc.seed = seed;
        }
        if let Some(threads) = threads {
            sc.run.threads = Some(threads);
        }
        let sim = Simulation::new(&sc)?;
        let mut warnings = warning_pairs(&sc.warnings);
        if sc.run.threads.is_some() {
            warnings.extend(incast_sim::threads_warning(&sc, &sim.partition()).map(|w| (w.path, w.message)));
        }
        Ok((sim, warnings))
    })
    .map_err(|e: incast_sim::Error| engine_error(py, &e))
}

#[pymethods]
impl PySimulation {
    /// Parses a scenario and builds its network. Raises `ScenarioError` naming the bad key, or
    /// `ResourceError` if memory runs out.
    #[new]
    #[pyo3(signature = (text, format = "toml", base_dir = None, seed = None, threads = None))]
    fn new(
        py: Python<'_>,
        text: String,
        format: &str,
        base_dir: Option<PathBuf>,
        seed: Option<u64>,
        threads: Option<&str>,
    ) -> PyResult<Self> {
        let (sim, warnings) = build(py, text, format, base_dir, seed, threads)?;
        Ok(PySimulation {
            inner: Mutex::new(Some(sim)),
            warnings,
        })
    }

    /// What the scenario will do that its file may not mean (docs/scenario.md, "Warnings"): a
    /// list of (key, message) pairs, each once, the same `check` returns under "warnings".
    fn warnings(&self) -> Vec<(String, String)> {
        self.warnings.clone()
    }

    /// Processes at most `max_events` events with the GIL released; True once the run is over.
    /// Raises `ResourceError` if the run runs out of memory or reaches `run.max_samples`.
    fn step(&self, py: Python<'_>, max_events: u64) -> PyResult<bool> {
        let stepped = py.detach(|| {
            let mut guard = self.inner.lock().map_err(|_| poisoned())?;
            let sim = guard.as_mut().ok_or_else(used_after_finish)?;
            Ok::<_, PyErr>(sim.step(max_events))
        })?;
        stepped.map_err(|e| resource_error(py, &e))
    }

    /// Traces flows `ids` too, as `[output] trace_flows` would; only before the first `step`.
    /// Raises ValueError naming an id the run does not have, or when the run has started.
    fn trace_flows(&self, py: Python<'_>, ids: Vec<u32>) -> PyResult<()> {
        py.detach(|| {
            let mut guard = self.inner.lock().map_err(|_| poisoned())?;
            let sim = guard.as_mut().ok_or_else(used_after_finish)?;
            sim.trace_flows(&ids).map_err(PyValueError::new_err)
        })
    }

    /// Where the run is, as a dict (see `_core.pyi`).
    fn progress<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // Another thread may be stepping: wait for the lock without holding the GIL.
        let p: Progress = py.detach(|| {
            let guard = self.inner.lock().map_err(|_| poisoned())?;
            guard
                .as_ref()
                .map(Simulation::progress)
                .ok_or_else(used_after_finish)
        })?;
        let d = PyDict::new(py);
        d.set_item("sim_time_s", p.sim_time_s)?;
        d.set_item("end_time_s", p.end_time_s)?;
        d.set_item("events", p.events)?;
        d.set_item("flows_completed", p.flows_completed)?;
        d.set_item("flows_total", p.flows_total)?;
        Ok(d)
    }

    /// Threads the run uses (`[run] threads`, at most one per part of the network), or None for
    /// the one event loop over the whole network.
    fn threads(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        py.detach(|| {
            let guard = self.inner.lock().map_err(|_| poisoned())?;
            guard.as_ref().map(Simulation::threads).ok_or_else(used_after_finish)
        })
    }

    /// How the network would be cut for a run across threads, as a dict (see `_core.pyi`).
    fn partition<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = py.detach(|| {
            let guard = self.inner.lock().map_err(|_| poisoned())?;
            guard.as_ref().map(Simulation::partition).ok_or_else(used_after_finish)
        })?;
        let d = PyDict::new(py);
        d.set_item("parts", p.parts)?;
        d.set_item("lookahead_s", p.lookahead.map(|l| l.as_secs_f64()))?;
        d.set_item("cut_links", p.cut_links)?;
        d.set_item("largest_part_ports", p.largest_part_ports)?;
        Ok(d)
    }

    /// The flow table's rows of the flows that have left the run since the last call, as columns
    /// (the layout of `finish()["flows"]`), in the order they left it. `finish` returns only the
    /// rows not taken; the summary counts every flow.
    fn take_flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = py.detach(|| {
            let mut guard = self.inner.lock().map_err(|_| poisoned())?;
            let sim = guard.as_mut().ok_or_else(used_after_finish)?;
            Ok::<_, PyErr>(sim.take_flow_records())
        })?;
        table_to_py(py, &rows[..], rows.len(), FLOW_COLUMNS)
    }

    /// Ends the run and returns its results as columns (see `_core.pyi`). The object is spent.
    /// Raises `ResourceError` if memory runs out for the results.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let finished = py.detach(|| {
            let mut guard = self.inner.lock().map_err(|_| poisoned())?;
            guard
                .take()
                .map(Simulation::finish)
                .ok_or_else(used_after_finish)
        })?;
        let results: RunResults = finished.map_err(|e| resource_error(py, &e))?;
        results_to_py(py, &results)
    }
}

/// Parses a scenario without building it; raises `ScenarioError` naming the bad key. Returns
/// the sections in effect (`incast_scenario::effective_sections`: `transport`, the protocols'
/// sections the flows read, `topology`, `arrivals`, and `check`, what `incast check` prints) and
/// `warnings`, the scenario's warnings as [key, message] pairs (docs/scenario.md, "Warnings").
#[pyfunction]
#[pyo3(signature = (text, format = "toml", base_dir = None))]
fn check<'py>(py: Python<'py>, text: String, format: &str, base_dir: Option<PathBuf>) -> PyResult<Bound<'py, PyAny>> {
    let parse = parser(format)?;
    let sections = py
        .detach(move || {
            let s = parse(&text, base_dir.as_deref())?;
            // What a run on `[run] threads` refuses, check refuses too; a topology too large to
            // build is left to the run, which reports the `ResourceError` it is.
            let mut warnings = warning_pairs(&s.warnings);
            let mut threads = None;
            match incast_sim::check_parts(&s) {
                Err(incast_sim::Error::Scenario(e)) => return Err(e),
                Ok(Some(partition)) => {
                    warnings.extend(incast_sim::threads_warning(&s, &partition).map(|w| (w.path, w.message)));
                    threads = s.run.threads.map(|t| threads_section(t.count(), &partition));
                }
                Ok(None) | Err(_) => {}
            }
            let mut sections = scenario::effective_sections(&s);
            sections.insert("warnings".into(), serde_json::json!(warnings));
            if let Some(threads) = threads {
                sections.insert("threads".into(), threads);
            }
            Ok(sections)
        })
        .map_err(|e| scenario_error(py, &e))?;
    json_loads(py, &serde_json::Value::Object(sections).to_string())
}

/// `check`'s `threads` section: how a run on `threads` threads would be cut (as
/// `Simulation.partition()` says) and how many threads it would use (`Partition::engines`).
fn threads_section(threads: u32, p: &incast_sim::Partition) -> serde_json::Value {
    serde_json::json!({
        "threads": threads,
        "used": p.engines(threads),
        "parts": p.parts,
        "lookahead_s": p.lookahead.map(|l| l.as_secs_f64()),
        "cut_links": p.cut_links,
        "largest_part_ports": p.largest_part_ports,
    })
}

/// The engine's parse of a scenario document, before any schema check, as plain Python objects
/// (dicts, lists, str, int, float, bool; TOML datetimes as their text). Python reads scenario
/// files through this, never a parser of its own, so that `incast check` and `incast run` accept
/// the same files. Raises `ScenarioError` with the engine's syntax message.
#[pyfunction]
#[pyo3(signature = (text, format = "toml"))]
fn document<'py>(py: Python<'py>, text: String, format: &str) -> PyResult<Bound<'py, PyAny>> {
    let format = format_named(format)?;
    let tree = py
        .detach(move || scenario::document(&text, format).map(|tree| tree.to_string()))
        .map_err(|e| scenario_error(py, &e))?;
    json_loads(py, &tree)
}

/// The bytes of the trace file a scenario names `written` (relative to `base_dir`, the working
/// directory when None), read by the engine's rules for every trace: inside the directory, a
/// regular file, at most `max_bytes` (the default of `run.max_trace_bytes` when None). Python
/// parses Parquet traces from these bytes. Raises `ScenarioError` (no key: the caller knows it).
#[pyfunction]
#[pyo3(signature = (written, base_dir = None, max_bytes = None))]
fn read_trace<'py>(
    py: Python<'py>,
    written: String,
    base_dir: Option<PathBuf>,
    max_bytes: Option<u64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let max_bytes = max_bytes.unwrap_or(scenario::DEFAULT_MAX_TRACE_BYTES);
    let bytes = py
        .detach(move || scenario::read_trace_file(&written, base_dir.as_deref(), max_bytes))
        .map_err(|message| scenario_error(py, &scenario::ScenarioError::new("", message)))?;
    Ok(PyBytes::new(py, &bytes))
}

/// A JSON text as Python objects.
fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// The version of the engine crate.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// A fixed-width value as it sits in an Arrow buffer: native byte order.
trait Plain: Copy + Default {
    const WIDTH: usize;
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl Plain for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}
plain!(u8, u32, u64, f64);

/// An Arrow bitmap (validity or boolean values): bit i, least significant first, is row i.
struct Bitmap {
    bits: Vec<u8>,
    len: usize,
}

impl Bitmap {
    fn with_rows(rows: usize) -> Self {
        Bitmap {
            bits: vec![0; rows.div_ceil(8)],
            len: 0,
        }
    }
    fn push(&mut self, set: bool) {
        if set {
            self.bits[self.len / 8] |= 1 << (self.len % 8);
        }
        self.len += 1;
    }
}

fn column<T: Plain>(values: impl Iterator<Item = T>, rows: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows * T::WIDTH);
    values.for_each(|v| v.put(&mut out));
    out
}

/// A nullable column: its values (zero where null) and its validity bitmap.
fn nullable_column<T: Plain>(
    values: impl Iterator<Item = Option<T>>,
    rows: usize,
) -> (Vec<u8>, Vec<u8>) {
    let mut out = Vec::with_capacity(rows * T::WIDTH);
    let mut valid = Bitmap::with_rows(rows);
    for v in values {
        valid.push(v.is_some());
        v.unwrap_or_default().put(&mut out);
    }
    (out, valid.bits)
}

/// Puts column `name` into `d` as `bytes`.
fn put_column<T: Plain>(
    d: &Bound<'_, PyDict>,
    name: &str,
    values: impl Iterator<Item = T>,
    rows: usize,
) -> PyResult<()> {
    d.set_item(name, PyBytes::new(d.py(), &column(values, rows)))
}

/// Puts nullable column `name` into `d`: values under `name`, validity under `name.valid`.
fn put_nullable<T: Plain>(
    d: &Bound<'_, PyDict>,
    name: &str,
    values: impl Iterator<Item = Option<T>>,
    rows: usize,
) -> PyResult<()> {
    let (values, valid) = nullable_column(values, rows);
    d.set_item(name, PyBytes::new(d.py(), &values))?;
    d.set_item(format!("{name}.valid"), PyBytes::new(d.py(), &valid))
}

/// Puts boolean column `name` into `d`, bit-packed as Arrow stores booleans (like validity
/// bitmaps); for a nullable column, its validity under `name.valid`.
fn put_bools(
    d: &Bound<'_, PyDict>,
    name: &str,
    values: impl Iterator<Item = Option<bool>>,
    rows: usize,
    nullable: bool,
) -> PyResult<()> {
    let (mut set, mut valid) = (Bitmap::with_rows(rows), Bitmap::with_rows(rows));
    for v in values {
        set.push(v == Some(true));
        valid.push(v.is_some());
    }
    d.set_item(name, PyBytes::new(d.py(), &set.bits))?;
    if nullable {
        d.set_item(format!("{name}.valid"), PyBytes::new(d.py(), &valid.bits))?;
    }
    Ok(())
}

/// Puts string column `name` into `d` dictionary-encoded: each row's u32 index under `name`,
/// the distinct strings under `name.names` (a table holds few: protocol names, or a network's
/// port names), so no Python string is made per row.
fn put_strings<'a>(
    d: &Bound<'_, PyDict>,
    name: &str,
    values: impl Iterator<Item = &'a str>,
    rows: usize,
) -> PyResult<()> {
    let mut names: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, u32> = HashMap::new();
    let mut codes = Vec::with_capacity(rows);
    for v in values {
        let code = match index.get(v) {
            Some(&code) => code,
            None => {
                let code = u32::try_from(names.len())
                    .map_err(|_| PyRuntimeError::new_err("over 2^32 distinct strings"))?;
                names.push(v);
                index.insert(v, code);
                code
            }
        };
        codes.push(code);
    }
    put_column(d, name, codes.into_iter(), rows)?;
    d.set_item(format!("{name}.names"), PyList::new(d.py(), names)?)
}

/// A results table as columns, walking its declared `columns` (`incast_sim::results`), so
/// that what crosses here is exactly what `columns()` tells Python to expect.
fn table_to_py<'py, T: ?Sized>(
    py: Python<'py>,
    table: &T,
    rows: usize,
    columns: &[Column<T>],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("rows", rows)?;
    for c in columns {
        let name = c.name;
        match c.values {
            Values::U8(f) => put_column(&d, name, (0..rows).map(|i| f(table, i)), rows)?,
            Values::U32(f) => put_column(&d, name, (0..rows).map(|i| f(table, i)), rows)?,
            Values::U64(f) => put_column(&d, name, (0..rows).map(|i| f(table, i)), rows)?,
            Values::F64(f) => put_column(&d, name, (0..rows).map(|i| f(table, i)), rows)?,
            Values::OptU32(f) => put_nullable(&d, name, (0..rows).map(|i| f(table, i)), rows)?,
            Values::OptU64(f) => put_nullable(&d, name, (0..rows).map(|i| f(table, i)), rows)?,
            Values::OptF64(f) => put_nullable(&d, name, (0..rows).map(|i| f(table, i)), rows)?,
            Values::Bool(f) => put_bools(&d, name, (0..rows).map(|i| Some(f(table, i))), rows, false)?,
            Values::OptBool(f) => put_bools(&d, name, (0..rows).map(|i| f(table, i)), rows, true)?,
            Values::Str(f) => put_strings(&d, name, (0..rows).map(|i| f(table, i)), rows)?,
        }
    }
    Ok(d)
}

/// A column as Python reads it: (name, type, nullable, doc).
type ColumnInfo = (&'static str, &'static str, bool, &'static str);

/// The declared columns of result table `table` ("flows", "ports", "traces", "throughput",
/// "offers" or "queues"), each as (name, type, nullable, doc); the type is "u8", "u32", "u64",
/// "f64", "bool" or "str". `incast.api` builds the tables' Arrow schemas from these. The traces
/// and queues tables end with the columns the transports add (`incast_sim::results::trace_columns`,
/// `port_sample_columns`), null in rows of other transports; the queues table's `port` (the
/// sampled port's name) comes first and is not listed.
#[pyfunction]
fn columns(table: &str) -> PyResult<Vec<ColumnInfo>> {
    fn describe<T: ?Sized>(columns: &[Column<T>]) -> Vec<ColumnInfo> {
        columns.iter().map(|c| (c.name, c.type_name(), c.nullable(), c.doc)).collect()
    }
    fn extra(columns: &[ExtraColumn]) -> impl Iterator<Item = ColumnInfo> + '_ {
        columns.iter().map(|c| (c.name, c.kind.type_name(), true, c.doc))
    }
    Ok(match table {
        "flows" => describe(FLOW_COLUMNS),
        "ports" => describe(PORT_COLUMNS),
        "traces" => describe(TRACE_COLUMNS).into_iter().chain(extra(trace_columns())).collect(),
        "throughput" => describe(THROUGHPUT_COLUMNS),
        "offers" => describe(OFFER_LOG_COLUMNS),
        "queues" => [
            ("host", "u32", true, "the host the sampled port faces, when it is a switch's downlink to one"),
            ("time_s", "f64", false, "sample time, seconds"),
            ("queue_bytes", "u64", false, "bytes queued at the port"),
        ]
        .into_iter()
        .chain(extra(port_sample_columns()))
        .collect(),
        _ => {
            return Err(PyValueError::new_err(format!(
                "table must be \"flows\", \"ports\", \"traces\", \"throughput\", \"offers\" or \"queues\", not {table:?}"
            )))
        }
    })
}

/// The traces table: its common columns, then the transports' own.
fn traces_to_py<'py>(py: Python<'py>, t: &TraceSeries) -> PyResult<Bound<'py, PyDict>> {
    let rows = t.time_s.len();
    let d = table_to_py(py, t, rows, TRACE_COLUMNS)?;
    for series in &t.columns {
        match &series.values {
            ExtraValues::U64(v) => put_nullable(&d, series.column.name, v.iter().copied(), rows)?,
            ExtraValues::F64(v) => put_nullable(&d, series.column.name, v.iter().copied(), rows)?,
        }
    }
    Ok(d)
}

fn summary_to_py<'py>(py: Python<'py>, s: &Summary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("events", s.events)?;
    d.set_item("sim_time_s", s.sim_time_s)?;
    d.set_item("wall_time_s", s.wall_time_s)?;
    d.set_item("flows", s.flows)?;
    d.set_item("flows_measured", s.flows_measured)?;
    d.set_item("flows_completed", s.flows_completed)?;
    d.set_item("deadline_flows", s.deadline_flows)?;
    d.set_item("deadline_unknown", s.deadline_unknown)?;
    d.set_item("app_throughput", s.app_throughput)?;
    d.set_item("packets_sent", s.packets_sent)?;
    d.set_item("packets_delivered", s.packets_delivered)?;
    d.set_item("packets_dropped", s.packets_dropped)?;
    d.set_item("packets_in_network", s.packets_in_network)?;
    d.set_item("packet_hops", s.packet_hops)?;
    d.set_item("ecn_marked", s.ecn_marked)?;
    d.set_item("ecn_marked_dropped", s.ecn_marked_dropped)?;
    d.set_item("ecn_marked_control", s.ecn_marked_control)?;
    d.set_item("ecn_remarked", s.ecn_remarked)?;
    d.set_item("max_queue_bytes", s.max_queue_bytes)?;
    d.set_item("timeouts", s.timeouts)?;
    for (name, value) in &s.port_counters {
        d.set_item(*name, *value)?;
    }
    d.set_item("transport", json_loads(py, &s.transport)?)?;
    d.set_item("stopped_at_horizon", s.stopped_at_horizon)?;
    d.set_item("status", s.status.name())?;
    d.set_item("stall_reason", s.stall.as_ref().map_or("", |st| st.reason.as_str()))?;
    d.set_item("stall_keys", PyList::new(py, s.stall.as_ref().map_or(&[][..], |st| st.keys.as_slice()))?)?;
    Ok(d)
}

/// Queue series flattened to one long table: `port` (each row's index into `port.names`, one
/// name per series), `host` (null where the port faces no host), `time_s`, `queue_bytes`.
fn queues_to_py<'py>(py: Python<'py>, queues: &[QueueSeries]) -> PyResult<Bound<'py, PyDict>> {
    let n: usize = queues.iter().map(|q| q.time_s.len()).sum();
    let d = PyDict::new(py);
    d.set_item("rows", n)?;
    let series = u32::try_from(queues.len())
        .map_err(|_| PyRuntimeError::new_err("over 2^32 sampled ports"))?;
    put_column(
        &d,
        "port",
        (0..series).flat_map(|i| std::iter::repeat_n(i, queues[i as usize].time_s.len())),
        n,
    )?;
    d.set_item("port.names", PyList::new(py, queues.iter().map(|q| q.port.as_str()))?)?;
    put_nullable(
        &d,
        "host",
        queues
            .iter()
            .flat_map(|q| std::iter::repeat_n(q.host, q.time_s.len())),
        n,
    )?;
    put_column(
        &d,
        "time_s",
        queues.iter().flat_map(|q| q.time_s.iter().copied()),
        n,
    )?;
    put_column(
        &d,
        "queue_bytes",
        queues.iter().flat_map(|q| q.queue_bytes.iter().copied()),
        n,
    )?;
    // What ports' processors sampled (D3's counters), null at ports without one.
    for column in port_sample_columns() {
        let values = queues.iter().flat_map(|q| {
            let sampled = q.sampled(column.name);
            (0..q.time_s.len()).map(move |i| sampled.get(i).copied().flatten())
        });
        put_nullable(&d, column.name, values, n)?;
    }
    Ok(d)
}

fn results_to_py<'py>(py: Python<'py>, r: &RunResults) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flows", table_to_py(py, &r.flows[..], r.flows.len(), FLOW_COLUMNS)?)?;
    d.set_item("summary", summary_to_py(py, &r.summary)?)?;
    d.set_item("queues", queues_to_py(py, &r.queues)?)?;
    d.set_item("ports", table_to_py(py, &r.ports[..], r.ports.len(), PORT_COLUMNS)?)?;
    match &r.capture {
        Some(c) => {
            let capture = PyDict::new(py);
            capture.set_item("pcap", PyBytes::new(py, &c.pcap))?;
            capture.set_item("packets", c.packets)?;
            capture.set_item("missed", c.missed)?;
            d.set_item("capture", capture)?;
        }
        None => d.set_item("capture", py.None())?,
    }
    match &r.traces {
        Some(t) => d.set_item("traces", traces_to_py(py, t)?)?,
        None => d.set_item("traces", py.None())?,
    }
    match &r.throughput {
        Some(t) => d.set_item("throughput", table_to_py(py, t, t.time_s.len(), THROUGHPUT_COLUMNS)?)?,
        None => d.set_item("throughput", py.None())?,
    }
    match &r.offer_log {
        Some(t) => {
            d.set_item("offers", table_to_py(py, t, t.time_s.len(), OFFER_LOG_COLUMNS)?)?;
            d.set_item("offers_missed", t.missed)?;
        }
        None => {
            d.set_item("offers", py.None())?;
            d.set_item("offers_missed", 0u64)?;
        }
    }
    Ok(d)
}

/// The protocols incast runs, in the registry's order (`incast_scenario::for_each_transport!`):
/// each a dict of `name` (as scenario files and result tables write it), `names` (every name a
/// file accepts), `label` (as figures write it), `transport` (the engine's transport that runs
/// it) and `sections` (the file's tables that transport reads). Python's protocol names and
/// labels come from here (`incast.protocols`). Also `keeps_connections` (whether an OLDI workload's
/// `connections = "persistent"` may carry it) and `reacts_to_ecn` (DCTCP, D2TCP).
#[pyfunction]
fn protocols(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let rows = scenario::Protocol::ALL.iter().map(|&p| {
        let d = PyDict::new(py);
        d.set_item("name", p.name())?;
        d.set_item("names", p.names())?;
        d.set_item("label", p.label())?;
        d.set_item("transport", p.transport())?;
        d.set_item("sections", p.transport_sections())?;
        d.set_item("keeps_connections", p.keeps_connections())?;
        d.set_item("reacts_to_ecn", p.reacts_to_ecn())?;
        Ok(d)
    });
    PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?)
}

/// The native module behind the `incast` package.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("ResourceError", m.py().get_type::<ResourceError>())?;
    m.add("DEFAULT_MAX_TRACE_BYTES", scenario::DEFAULT_MAX_TRACE_BYTES)?;
    m.add_class::<PySimulation>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(columns, m)?)?;
    m.add_function(wrap_pyfunction!(document, m)?)?;
    m.add_function(wrap_pyfunction!(protocols, m)?)?;
    m.add_function(wrap_pyfunction!(read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
