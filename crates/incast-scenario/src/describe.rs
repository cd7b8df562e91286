//! The effective transport settings of a loaded scenario, keyed as the file writes them: the
//! stack's defaults with the file's keys applied, so a user sees what a run used (`incast
//! check`, `summary.json`) without reading the stack tables.

use incast_proto::tcp::TcpConfig;
use incast_proto::time::Duration;
use serde_json::{json, Map, Value};

use super::file::Named;
use super::TransportSpec;

/// Every `[transport]` key of `spec` with the value in effect, in file syntax (times as unit
/// strings, names as the file accepts them, `false` for delayed ACKs that are off).
pub fn effective_transport(spec: &TransportSpec) -> Map<String, Value> {
    let t: &TcpConfig = &spec.tcp;
    let mut m = Map::new();
    let mut put = |key: &str, value: Value| {
        m.insert(key.to_string(), value);
    };
    put("stack", json!(spec.stack.name()));
    put("protocol", json!(spec.protocol.name()));
    put("mss", json!(t.mss_bytes));
    put("timestamps", json!(t.timestamps));
    put("initial_window", json!(t.initial_window_segments));
    put("initial_ssthresh", t.initial_ssthresh_bytes.map_or(Value::Null, |b| json!(format!("{b}B"))));
    put("min_rto", json!(time(t.min_rto)));
    put("initial_rto", json!(time(t.initial_rto.unwrap_or(t.min_rto))));
    put("max_rto", json!(time(t.max_rto)));
    put("clock_granularity", json!(time(t.clock_granularity)));
    put(
        "delayed_ack",
        t.delayed_ack.map_or(json!(false), |d| {
            json!({"segments": d.segments, "timeout": time(d.timeout), "quickack": d.quickack})
        }),
    );
    put("receive_window", t.receive_window_bytes.map_or(Value::Null, |b| json!(format!("{b}B"))));
    put("dupack_threshold", json!(t.dupack_threshold));
    put("sack", json!(t.sack));
    put("rescue_retransmission", json!(t.rescue_retransmission));
    put("partial_ack_retransmit", json!(t.partial_ack_retransmit));
    put("prr", json!(t.prr));
    put("ecn_reduction", json!(t.ecn_reduction.name()));
    put("recovery_in_cwr", json!(t.recovery_in_cwr));
    put("limited_transmit", json!(t.limited_transmit));
    put("window_growth", json!(t.window_growth.name()));
    put("cwnd_validation", json!(t.cwnd_validation));
    put("loss_basis", json!(t.loss_basis.name()));
    put("dctcp_loss_cut", json!(t.dctcp_loss_cut.name()));
    put("ecn_cut_floor", json!(t.ecn_cut_floor_segments));
    put("ecn_cut_after_timeout", json!(t.ecn_cut_after_timeout));
    put("sub_segment_window", json!(t.sub_segment_window.name()));
    put("ce_sequence_check", json!(t.ce_sequence_check));
    put("ect_control_packets", json!(t.ect_control_packets));
    put("handshake", json!(t.handshake));
    put("restart_after_idle", json!(t.restart_after_idle));
    put("dctcp_g", json!(spec.dctcp_g));
    put("dctcp_initial_alpha", json!(spec.dctcp_initial_alpha));
    m
}

/// A duration in the largest unit that writes it exactly (`"10ms"`, `"1500us"`, `"7ps"`).
fn time(d: Duration) -> String {
    let ps = d.as_ps();
    for (unit, scale) in [("s", 1_000_000_000_000u64), ("ms", 1_000_000_000), ("us", 1_000_000), ("ns", 1_000)] {
        if ps != 0 && ps.is_multiple_of(scale) {
            return format!("{}{unit}", ps / scale);
        }
    }
    format!("{ps}ps")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_toml;
    use crate::tests::PORTS;

    #[test]
    fn effective_transport_shows_stack_defaults_and_overrides() {
        let s = parse_toml(
            "[topology]\nkind = \"star\"\nhosts = 2\n[transport]\nstack = \"ns3\"\nmss = 1448\nmin_rto = \"10ms\"\n\
             [[workload]]\nkind = \"flow-burst\"\nsenders = 1\n",
            None,
            &PORTS,
        )
        .unwrap();
        let m = effective_transport(&s.transport);
        assert_eq!(m["stack"], json!("ns3"));
        assert_eq!(m["mss"], json!(1448));
        assert_eq!(m["min_rto"], json!("10ms"));
        assert_eq!(m["initial_rto"], json!("3s"));
        assert_eq!(m["clock_granularity"], json!("1ms"));
        assert_eq!(m["window_growth"], json!("per-ack"));
        assert_eq!(m["delayed_ack"], json!({"segments": 2, "timeout": "200ms", "quickack": 0}));
        assert_eq!(m["recovery_in_cwr"], json!(false));
        assert_eq!(m["ecn_cut_floor"], json!(0));
        assert_eq!(m["ecn_cut_after_timeout"], json!(true));
        assert_eq!(m["sub_segment_window"], json!("wait"));
        assert_eq!(m["ce_sequence_check"], json!(true));
        assert_eq!(m["ect_control_packets"], json!(true));
    }

    #[test]
    fn time_uses_the_largest_exact_unit() {
        assert_eq!(time(Duration::from_ms(200)), "200ms");
        assert_eq!(time(Duration::from_us(1_500)), "1500us");
        assert_eq!(time(Duration::from_ps(7)), "7ps");
        assert_eq!(time(Duration::ZERO), "0ps");
    }
}
