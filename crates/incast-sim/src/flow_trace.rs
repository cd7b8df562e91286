//! Per-flow traces (`[output] trace_flows`, `trace_workloads`): the sender state of chosen flows,
//! one row each time any of it changes. An observer in the sense of htsim's loggers: the engine
//! asks it after every event that touched a flow, and only when the scenario asked for traces.

use std::collections::HashMap;

use incast_proto::time::{Duration, Instant};

use crate::error::{reserve, ResourceError};
use crate::flow::Transport;
use crate::ids::FlowId;
use crate::results::TraceSeries;
use crate::scenario::TraceSpec;

/// What a trace row holds of a sender (see `TraceSeries` for units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TraceState {
    pub(crate) cwnd_bytes: Option<u64>,
    pub(crate) ssthresh_bytes: Option<u64>,
    pub(crate) srtt_ps: Option<u64>,
    pub(crate) rto_ps: u64,
    pub(crate) alpha: Option<f64>,
    /// D2TCP: d and p of the last ECN cut.
    pub(crate) d2tcp_cut: Option<(f64, f64)>,
    pub(crate) d3_rate: Option<u64>,
    pub(crate) d3_desired: Option<u64>,
}

impl TraceState {
    /// What `transport`'s sender holds now.
    pub(crate) fn of(transport: &Transport) -> TraceState {
        match transport {
            Transport::Tcp { sender, .. } => TraceState {
                cwnd_bytes: Some(sender.cwnd_bytes()),
                ssthresh_bytes: Some(sender.ssthresh_bytes()).filter(|&s| s != u64::MAX),
                srtt_ps: sender.srtt().map(Duration::as_ps),
                rto_ps: sender.rto().as_ps(),
                alpha: sender.congestion_control().dctcp_alpha(),
                d2tcp_cut: sender.congestion_control().d2tcp_last_cut(),
                d3_rate: None,
                d3_desired: None,
            },
            Transport::D3 { sender, .. } => TraceState {
                cwnd_bytes: None,
                ssthresh_bytes: None,
                srtt_ps: sender.srtt().map(Duration::as_ps),
                rto_ps: sender.rto().as_ps(),
                alpha: None,
                d2tcp_cut: None,
                d3_rate: Some(sender.sending_rate()),
                d3_desired: Some(sender.desired_rate()),
            },
            // PDQ's accepted rate R_S shares the explicit-rate column (0 while paused).
            Transport::Pdq { sender, .. } => TraceState {
                cwnd_bytes: None,
                ssthresh_bytes: None,
                srtt_ps: sender.srtt().map(Duration::as_ps),
                rto_ps: sender.rto().as_ps(),
                alpha: None,
                d2tcp_cut: None,
                d3_rate: Some(sender.rate()),
                d3_desired: None,
            },
        }
    }
}

/// The traces being recorded.
#[derive(Debug)]
pub(crate) struct Traces {
    /// Flow ids to trace, sorted.
    flows: Vec<u32>,
    workloads: Vec<u32>,
    apps: Vec<u32>,
    /// Each traced flow's last recorded state, so that only changes make rows.
    last: HashMap<u32, TraceState>,
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
            series: TraceSeries::default(),
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

    /// Appends a row for flow `id` at `now` if its state differs from the last one recorded.
    pub(crate) fn record(&mut self, id: FlowId, now: Instant, state: TraceState) -> Result<(), ResourceError> {
        if self.last.get(&id.0) == Some(&state) {
            return Ok(());
        }
        if self.rows_left == 0 {
            return Err(ResourceError::new(
                "output.trace_flows",
                "the run reached the limit of trace rows (`run.max_samples`; raise it, or trace fewer flows)",
            ));
        }
        self.rows_left -= 1;
        self.last.insert(id.0, state);
        let s = &mut self.series;
        if s.flow_id.len() == s.flow_id.capacity() {
            let more = s.flow_id.len().max(1024);
            reserve(&mut s.flow_id, more, "the trace rows")?;
            reserve(&mut s.time_s, more, "the trace rows")?;
            reserve(&mut s.cwnd_bytes, more, "the trace rows")?;
            reserve(&mut s.ssthresh_bytes, more, "the trace rows")?;
            reserve(&mut s.srtt_s, more, "the trace rows")?;
            reserve(&mut s.rto_s, more, "the trace rows")?;
            reserve(&mut s.alpha, more, "the trace rows")?;
            reserve(&mut s.d2tcp_d, more, "the trace rows")?;
            reserve(&mut s.d2tcp_p, more, "the trace rows")?;
            reserve(&mut s.d3_rate_bytes_per_s, more, "the trace rows")?;
            reserve(&mut s.d3_desired_bytes_per_s, more, "the trace rows")?;
        }
        let secs = |ps: u64| ps as f64 / 1e12;
        s.flow_id.push(id.0);
        s.time_s.push(now.as_secs_f64());
        s.cwnd_bytes.push(state.cwnd_bytes);
        s.ssthresh_bytes.push(state.ssthresh_bytes);
        s.srtt_s.push(state.srtt_ps.map(secs));
        s.rto_s.push(secs(state.rto_ps));
        s.alpha.push(state.alpha);
        s.d2tcp_d.push(state.d2tcp_cut.map(|(d, _)| d));
        s.d2tcp_p.push(state.d2tcp_cut.map(|(_, p)| p));
        s.d3_rate_bytes_per_s.push(state.d3_rate);
        s.d3_desired_bytes_per_s.push(state.d3_desired);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cwnd: u64) -> TraceState {
        TraceState { cwnd_bytes: Some(cwnd), ssthresh_bytes: None, srtt_ps: None, rto_ps: 1, alpha: None, d2tcp_cut: None, d3_rate: None, d3_desired: None }
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
        assert_eq!(t.series.cwnd_bytes, [Some(10), Some(20), Some(10)]);
        let e = t.record(FlowId(3), at, state(11)).unwrap_err();
        assert!(e.to_string().contains("output.trace_flows"), "{e}");
    }
}
