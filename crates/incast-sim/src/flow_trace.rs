//! Per-flow traces (`[output] trace_flows`, `trace_workloads`): the sender state of chosen flows,
//! one row each time any of it changes. An observer in the sense of htsim's loggers: the engine
//! asks it after every event that touched a flow, and only when the scenario asked for traces.

use std::collections::HashMap;

use incast_proto::time::Instant;

use crate::error::{reserve, try_extend, try_permute, ResourceError};
use crate::ids::FlowId;
use crate::results::{ExtraSeries, ExtraValue, ExtraValues, TraceSeries};
use crate::transport::trace_columns;
use crate::scenario::TraceSpec;
use crate::transport::TraceRow;

/// The traces being recorded.
#[derive(Debug)]
pub(crate) struct Traces {
    /// Flow ids to trace, sorted.
    flows: Vec<u32>,
    workloads: Vec<u32>,
    apps: Vec<u32>,
    /// Each traced flow's last recorded state, so that only changes make rows.
    last: HashMap<u32, TraceRow>,
    pub(crate) series: TraceSeries,
    /// Rows left before `run.max_samples`.
    rows_left: u64,
}

impl Traces {
    pub(crate) fn new(spec: &TraceSpec, max_rows: u64) -> Traces {
        let mut traces = Traces {
            flows: Vec::new(),
            workloads: spec.workloads.clone(),
            apps: spec.apps.clone(),
            last: HashMap::new(),
            series: TraceSeries { columns: trace_columns().iter().map(ExtraSeries::of).collect(), ..TraceSeries::default() },
            rows_left: max_rows,
        };
        traces.add_flows(&spec.flows);
        traces
    }

    /// Traces flows `ids` too.
    pub(crate) fn add_flows(&mut self, ids: &[u32]) {
        self.flows.extend_from_slice(ids);
        self.flows.sort_unstable();
        self.flows.dedup();
    }

    /// Whether flow `id` of workload `workload` and OLDI application `app` is traced.
    pub(crate) fn wants(&self, id: FlowId, workload: u32, app: Option<u32>) -> bool {
        self.workloads.contains(&workload) || app.is_some_and(|a| self.apps.contains(&a)) || self.flows.binary_search(&id.0).is_ok()
    }

    /// Joins the rows of `other` (another engine's, which ran other flows' senders: `crate::sim::crew`)
    /// to these; fails if together they pass `run.max_samples`, as one engine's would have.
    pub(crate) fn absorb(&mut self, other: Traces) -> Result<(), ResourceError> {
        let theirs = other.series;
        if theirs.flow_id.len() as u64 > self.rows_left {
            return Err(too_many_rows());
        }
        self.rows_left -= theirs.flow_id.len() as u64;
        let s = &mut self.series;
        let rows = theirs.flow_id.len();
        for (ours, theirs) in s.columns.iter_mut().zip(theirs.columns) {
            match (&mut ours.values, theirs.values) {
                (ExtraValues::U64(ours), ExtraValues::U64(theirs)) => extend(ours, theirs)?,
                (ExtraValues::F64(ours), ExtraValues::F64(theirs)) => extend(ours, theirs)?,
                _ => unreachable!("the same columns in every engine (`trace_columns`)"),
            }
        }
        extend(&mut s.flow_id, theirs.flow_id)?;
        extend(&mut s.time_s, theirs.time_s)?;
        extend(&mut s.srtt_s, theirs.srtt_s)?;
        extend(&mut s.rto_s, theirs.rto_s)?;
        debug_assert!(s.columns.iter().all(|c| c.values.len() == s.flow_id.len()), "{rows} rows joined to every column");
        Ok(())
    }

    /// Orders the rows by time, then by flow, each flow's rows in the order they were recorded:
    /// a run cut into parts records each flow's rows in its sender's part, and the parts'
    /// events interleave in an order that depends on which engine ran them.
    /// Fails if memory runs out for the reordered rows.
    pub(crate) fn order_by_time_and_flow(&mut self) -> Result<(), ResourceError> {
        let s = &mut self.series;
        let mut order: Vec<usize> = Vec::new();
        reserve(&mut order, s.flow_id.len(), "the trace rows")?;
        order.extend(0..s.flow_id.len());
        order.sort_by(|&a, &b| s.time_s[a].total_cmp(&s.time_s[b]).then(s.flow_id[a].cmp(&s.flow_id[b])));
        fn permute<T: Copy>(values: &mut Vec<T>, order: &[usize]) -> Result<(), ResourceError> {
            try_permute(values, order, "the trace rows")
        }
        permute(&mut s.flow_id, &order)?;
        permute(&mut s.time_s, &order)?;
        permute(&mut s.srtt_s, &order)?;
        permute(&mut s.rto_s, &order)?;
        for column in &mut s.columns {
            match &mut column.values {
                ExtraValues::U64(values) => permute(values, &order)?,
                ExtraValues::F64(values) => permute(values, &order)?,
            }
        }
        Ok(())
    }

    /// Appends a row for flow `id` at `now` if its state differs from the last one recorded.
    pub(crate) fn record(&mut self, id: FlowId, now: Instant, state: TraceRow) -> Result<(), ResourceError> {
        if self.last.get(&id.0) == Some(&state) {
            return Ok(());
        }
        if self.rows_left == 0 {
            return Err(too_many_rows());
        }
        self.rows_left -= 1;
        let s = &mut self.series;
        if s.flow_id.len() == s.flow_id.capacity() {
            let more = s.flow_id.len().max(1024);
            reserve(&mut s.flow_id, more, "the trace rows")?;
            reserve(&mut s.time_s, more, "the trace rows")?;
            reserve(&mut s.srtt_s, more, "the trace rows")?;
            reserve(&mut s.rto_s, more, "the trace rows")?;
            for series in &mut s.columns {
                match &mut series.values {
                    ExtraValues::U64(v) => reserve(v, more, "the trace rows")?,
                    ExtraValues::F64(v) => reserve(v, more, "the trace rows")?,
                }
            }
        }
        let secs = |ps: u64| ps as f64 / 1e12;
        s.flow_id.push(id.0);
        s.time_s.push(now.as_secs_f64());
        s.srtt_s.push(state.srtt_ps.map(secs));
        s.rto_s.push(secs(state.rto_ps));
        for (column, series) in trace_columns().iter().zip(s.columns.iter_mut()) {
            match (&mut series.values, state.get(column.name)) {
                (ExtraValues::U64(v), Some(ExtraValue::U64(x))) => v.push(Some(x)),
                (ExtraValues::F64(v), Some(ExtraValue::F64(x))) => v.push(Some(x)),
                (ExtraValues::U64(v), _) => v.push(None),
                (ExtraValues::F64(v), _) => v.push(None),
            }
        }
        self.last.insert(id.0, state);
        Ok(())
    }
}

/// The error of a run past its limit of trace rows.
fn too_many_rows() -> ResourceError {
    ResourceError::new("output.trace_flows", "the run reached the limit of trace rows (`run.max_samples`; raise it, or trace fewer flows)")
}

/// Appends `more` to `values`, or fails if memory runs out.
fn extend<T>(values: &mut Vec<T>, more: Vec<T>) -> Result<(), ResourceError> {
    try_extend(values, more, "the trace rows")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row whose TCP window column holds `cwnd`.
    fn state(cwnd: u64) -> TraceRow {
        TraceRow { srtt_ps: None, rto_ps: 1, values: vec![("cwnd_bytes", ExtraValue::U64(cwnd))] }
    }

    #[test]
    fn rows_are_recorded_on_change_only_and_within_the_limit() {
        let mut t = Traces::new(&TraceSpec { flows: vec![3, 1], workloads: vec![2], apps: vec![1] }, 3);
        assert!(t.wants(FlowId(1), 0, None) && t.wants(FlowId(9), 2, None) && !t.wants(FlowId(9), 0, None));
        assert!(t.wants(FlowId(9), 0, Some(1)) && !t.wants(FlowId(9), 0, Some(0)));
        t.add_flows(&[9, 3]);
        assert!(t.wants(FlowId(9), 0, None) && t.flows == [1, 3, 9]);
        let at = Instant::ZERO;
        t.record(FlowId(1), at, state(10)).unwrap();
        t.record(FlowId(1), at, state(10)).unwrap();
        t.record(FlowId(1), at, state(20)).unwrap();
        t.record(FlowId(3), at, state(10)).unwrap();
        assert_eq!(t.series.flow_id, [1, 1, 3]);
        assert_eq!(t.series.u64s("cwnd_bytes"), [Some(10), Some(20), Some(10)]);
        let e = t.record(FlowId(3), at, state(11)).unwrap_err();
        assert!(e.to_string().contains("output.trace_flows"), "{e}");
    }
}
