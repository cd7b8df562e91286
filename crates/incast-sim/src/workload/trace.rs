//! A CSV trace's flows, read from the file as the run reaches them, as Poisson arrivals are
//! drawn (`workload::poisson`): a run of millions of trace flows holds one line of the file and
//! the flows in flight, not a plan per row (issue 41; about 480 bytes a flow before).
//!
//! Scenario validation read the whole file once, checking every row and counting them, so the
//! flows take their numbers before the run as an eager plan gave them (rows in file order, which
//! is start order). The run reads the file again through the same checks
//! (`incast_scenario::TraceRows`): a file changed in between stops the run with an error naming
//! the workload's `path`, never a flow the check did not see.

use crate::error::ResourceError;
use crate::scenario::{FlowOptions, Protocol, TraceFile, TraceRows};

use super::draw::FlowPlan;

/// The rows of a trace workload, one flow at a time.
pub(crate) struct TraceSource {
    workload: u32,
    rows: TraceRows,
    written: String,
    options: FlowOptions,
}

impl TraceSource {
    /// Opens the trace of workload `workload`.
    pub(crate) fn open(workload: u32, trace: &TraceFile, options: &FlowOptions) -> Result<TraceSource, ResourceError> {
        let rows = TraceRows::open(trace).map_err(|m| changed(workload, &trace.written, &m))?;
        Ok(TraceSource { workload, rows, written: trace.written.clone(), options: options.clone() })
    }

    /// The protocol the workload's flows run, when it names one.
    pub(crate) fn protocol(&self) -> Option<Protocol> {
        self.options.protocol
    }

    /// The next row's flow, `None` at the end of the file.
    pub(crate) fn next(&mut self) -> Result<Option<FlowPlan>, ResourceError> {
        let row = self.rows.next_flow().map_err(|m| changed(self.workload, &self.written, &m))?;
        Ok(row.map(|f| FlowPlan::new(self.workload, &self.options, f.src, f.dst, f.size_bytes, f.start, f.deadline)))
    }

    /// The error of a trace that ends before the `count` rows its check found.
    pub(crate) fn ended_early(&self, drawn: u64, count: u64) -> ResourceError {
        changed(self.workload, &self.written, &format!("it ends after {drawn} flows, where the check counted {count}"))
    }
}

/// The error of a trace that no longer reads as it did when the scenario was checked.
fn changed(workload: u32, written: &str, why: &str) -> ResourceError {
    ResourceError::new(
        format!("workload[{workload}].path"),
        format!("trace {written:?} changed since the scenario was checked, as the run read it: {why}"),
    )
}
