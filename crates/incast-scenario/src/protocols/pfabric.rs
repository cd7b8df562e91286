//! pFabric's transport in a scenario (Alizadeh et al., SIGCOMM 2013; docs/pfabric.md): the
//! `[pfabric]` section of its ports and hosts ([`PfabricSpec`]), and pFabric's rules: ports that
//! are its own (it runs alone), hosts that run their own TCP and read none of `[transport]`'s
//! keys.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use incast_proto::time::Duration;

use super::{Checked, Protocol, SectionContext, TransportRules};
use crate::check::{count, err, positive_time, Result};
use crate::units::{rate_text, time_text as time};
use crate::error::join;
use crate::units::{Size, Time};
use crate::limits;
use crate::spec::RunSpec;

/// pFabric's rules.
pub(crate) struct Rules;

impl TransportRules for Rules {
    const ALONE: Option<&'static str> = Some("pFabric's ports order packets by a priority only pFabric hosts stamp");
    const READS_TRANSPORT: bool = false;
    const INSTEAD_OF_TRANSPORT: &'static str = "pFabric's hosts run their own TCP, set by [pfabric]";
}

/// The `[pfabric]` section.
pub(crate) struct Section;

/// `[pfabric]` checked.
pub(crate) type Spec = PfabricSpec;

impl super::Section for Section {
    type Raw = Raw;
    type Spec = PfabricSpec;

    fn used_by(protocol: Protocol) -> bool {
        protocol == Protocol::Pfabric
    }

    fn validate(raw: Raw, context: &SectionContext<'_>) -> Result<PfabricSpec> {
        validate_pfabric(raw, context.run)
    }

    fn check(spec: &PfabricSpec, scenario: &Checked<'_>) -> Result<()> {
        if scenario.first_running(Protocol::Pfabric).is_none() {
            return Ok(());
        }
        check_rto(spec, scenario.topology.host_link_rate())
    }

    fn describe(p: &PfabricSpec) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("buffer".into(), json!(format!("{}B", p.buffer_bytes)));
        m.insert("initial_window".into(), json!(p.initial_window_segments));
        m.insert("max_window".into(), json!(p.max_window_segments));
        m.insert("rto".into(), json!(time(p.rto)));
        m.insert("probe_after".into(), json!(p.probe_after));
        m
    }

    fn heading(_spec: &PfabricSpec) -> String {
        "[pfabric] in effect (pFabric's defaults with the file's keys; its hosts send 1460 B segments, SACK, an ACK \
         per packet, no handshake):"
            .into()
    }
}

/// pFabric's settings (`[pfabric]`). The defaults are pFabric's own for its 10 Gbps
/// leaf-spine, as the YAPS simulator (NetSys/simulator, `py/run_experiments.py`,
/// `conf_str_pfabric`) configures them: 36 KiB ports (about two bandwidth-delay products), an
/// initial window of 12 segments (one BDP) capped at 15, and a fixed 45 us retransmission
/// timeout (about 3 RTTs); probe mode after 5 timeouts in a row, as pFabric's ns-2 agent
/// (HKUST-SING/PIAS-NS2 `prob_cap_`), which YAPS leaves out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PfabricSpec {
    /// Bytes every pFabric port may hold waiting (switch ports, and host NICs that are
    /// `host_nic = "like-switch"`); `[switch] buffer` and `ecn_threshold` do not apply to them.
    pub buffer_bytes: u64,
    /// A flow's first window, in segments.
    pub initial_window_segments: u32,
    /// The largest window, in segments.
    pub max_window_segments: u32,
    /// The retransmission timeout: fixed, no RTT estimate, no back-off.
    pub rto: Duration,
    /// Probe mode after this many timeouts in a row: one-byte probes instead of segments
    /// until an ACK (pFabric Section 4.2; the ns-2 MinTCP agent's `prob_cap_` 5); 0 never.
    pub probe_after: u32,
}

impl Default for PfabricSpec {
    fn default() -> Self {
        PfabricSpec {
            buffer_bytes: PFABRIC_DEFAULT_BUFFER_BYTES,
            initial_window_segments: 12,
            max_window_segments: 15,
            rto: Duration::from_us(45),
            probe_after: 5,
        }
    }
}

/// YAPS's `queue_size: 36864`, in bytes.
pub const PFABRIC_DEFAULT_BUFFER_BYTES: u64 = 36_864;

/// `[pfabric]` as the file writes it.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    pub(crate) buffer: Option<Size>,
    pub(crate) initial_window: Option<u64>,
    pub(crate) max_window: Option<u64>,
    pub(crate) rto: Option<Time>,
    pub(crate) probe_after: Option<u64>,
}

/// The largest pFabric window, in segments: far above any bandwidth-delay product a
/// datacenter has (1,000 segments is 1.2 ms at 10 Gbps).
const PFABRIC_MAX_WINDOW: u64 = 100_000;

/// The most timeouts in a row before probe mode: beyond any run (1,000 timeouts of 45 us is
/// 45 ms of a flow getting nothing through).
const PFABRIC_MAX_PROBE_AFTER: u64 = 1_000_000;

/// pFabric's timer against the network, its host links as fast as `fastest`: the timeout must
/// be at least one full packet's serialization on the fastest host link. pFabric's timer is
/// fixed (no RTT estimate, no back-off), so a shorter one fires before any flow's first packet
/// has left its own host (every flow's data crosses its sender's NIC, at most this fast), every
/// packet is resent before it could be acknowledged, and the timers alone cost an event per
/// timeout per flow: at 1 ps, 10^12 a simulated second each (issue 39). The fastest host link
/// gives the bound that holds for every flow whatever its path; a timeout above it but below a
/// flow's round trip still runs (each flow resends, then probes, every timeout), and what such a
/// run cannot finish the progress watchdog (`[run] stall_after`) stops.
fn check_rto(spec: &PfabricSpec, fastest: incast_proto::time::BitsPerSec) -> Result<()> {
    let packet = u64::from(incast_proto::tcp::MTU_BYTES);
    let bound = fastest.tx_time(packet);
    if spec.rto < bound {
        return Err(err(
            "pfabric.rto",
            format!(
                "{} is shorter than one full packet's serialization on the fastest host link ({packet} B at {}: {}): \
                 the timer never backs off, and would fire before any flow's first packet left its host; \
                 give at least {} (pFabric's is about three round trips, docs/pfabric.md)",
                time(spec.rto),
                rate_text(fastest),
                time(bound),
                time(bound)
            ),
        ));
    }
    Ok(())
}

/// `[pfabric]`, defaults from pFabric's public simulator ([`PfabricSpec`]): a buffer that holds
/// at least one full packet, windows of at least one segment with the cap at least the initial
/// one, a positive timeout within the horizon.
fn validate_pfabric(raw: Raw, run: &RunSpec) -> Result<PfabricSpec> {
    let at = |key: &str| join("pfabric", key);
    let d = PfabricSpec::default();
    let buffer_bytes = raw.buffer.map_or(d.buffer_bytes, |b| b.0);
    // pFabric's hosts send 1460 B of payload under 40 B of headers.
    let full_packet = u64::from(incast_proto::tcp::MTU_BYTES);
    if buffer_bytes < full_packet {
        return Err(err(at("buffer"), format!("must hold at least one full packet ({full_packet} B; found {buffer_bytes} B)")));
    }
    let initial_window_segments = match raw.initial_window {
        None => d.initial_window_segments,
        Some(n) => count(|| at("initial_window"), n, 1, PFABRIC_MAX_WINDOW)?,
    };
    let max_window_segments = match raw.max_window {
        None => d.max_window_segments.max(initial_window_segments),
        Some(n) => count(|| at("max_window"), n, 1, PFABRIC_MAX_WINDOW)?,
    };
    if max_window_segments < initial_window_segments {
        return Err(err(
            at("max_window"),
            format!("must not be below initial_window ({max_window_segments} < {initial_window_segments} segments)"),
        ));
    }
    limits::within_horizon(|| at("rto"), raw.rto, run)?;
    let rto = positive_time(|| at("rto"), raw.rto, d.rto)?;
    let probe_after = match raw.probe_after {
        None => d.probe_after,
        Some(n) => count(|| at("probe_after"), n, 0, PFABRIC_MAX_PROBE_AFTER)?,
    };
    Ok(PfabricSpec { buffer_bytes, initial_window_segments, max_window_segments, rto, probe_after })
}

#[cfg(test)]
mod tests {
    use crate::fixtures::PORTS;
    use crate::{parse_toml, Scenario, ScenarioError};

    /// A pFabric flow burst on a 4-host star of `link_rate`, with `[pfabric]` keys `pfabric`.
    fn parse(link_rate: &str, pfabric: &str) -> Result<Scenario, ScenarioError> {
        let text = format!(
            "[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"{link_rate}\"\n[transport]\nprotocol = \"pfabric\"\n\
             [pfabric]\n{pfabric}\n[[workload]]\nkind = \"flow-burst\"\n"
        );
        parse_toml(&text, None, &PORTS)
    }

    #[test]
    fn a_timeout_shorter_than_a_packet_on_the_fastest_host_link_is_refused_with_the_bound() {
        // Issue 39: 1 ps, 40 M timer events per 20 us simulated.
        let e = parse("1Gbps", "rto = \"1ps\"").expect_err("refused");
        assert_eq!(e.path, "pfabric.rto");
        // 1500 B at 1 Gbps: 12 us.
        assert!(e.message.contains("1ps") && e.message.contains("1500 B at 1Gbps: 12us"), "{e}");
        assert_eq!(parse("1Gbps", "rto = \"11999ns\"").expect_err("refused").path, "pfabric.rto");
        parse("1Gbps", "rto = \"12us\"").expect("one packet's time");
        // At 10 Gbps, 1.2 us; pFabric's 45 us is far above.
        parse("10Gbps", "rto = \"1200ns\"").expect("one packet's time");
        parse("10Gbps", "").expect("pFabric's defaults");
        // At 100 Mbps a packet takes 120 us: pFabric's 45 us default fires first.
        let e = parse("100Mbps", "").expect_err("refused");
        assert!(e.message.contains("45us") && e.message.contains("120us"), "{e}");
    }
}
