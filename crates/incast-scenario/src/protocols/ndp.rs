//! NDP's transport in a scenario (Handley et al., SIGCOMM 2017; docs/ndp.md): the `[ndp]`
//! section of its ports and hosts ([`NdpSpec`]), and NDP's rules: ports that are its own (they
//! trim packets to headers only NDP hosts answer, so it runs alone), hosts that read none of
//! `[transport]`'s keys, a connection per flow.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use incast_proto::time::Duration;

use super::{Protocol, SectionContext, TransportRules};
use crate::check::{count, err, finite, positive_time, Result};
use crate::error::join;
use crate::limits;
use crate::spec::RunSpec;
use crate::units::time_text as time;
use crate::units::{Size, Time};

/// NDP's rules.
pub(crate) struct Rules;

impl TransportRules for Rules {
    const ALONE: Option<&'static str> =
        Some("NDP's ports trim packets to headers that only NDP hosts answer, and its hosts pace the PULLs of every flow they receive");
    const KEEPS_CONNECTIONS: bool = false;
    const READS_TRANSPORT: bool = false;
    const INSTEAD_OF_TRANSPORT: &'static str = "[transport] protocol = \"ndp\": NDP's hosts use none of [transport]'s other keys";
}

/// The `[ndp]` section.
pub(crate) struct Section;

/// `[ndp]` checked.
pub(crate) type Spec = NdpSpec;

impl super::Section for Section {
    type Raw = Raw;
    type Spec = NdpSpec;

    fn used_by(protocol: Protocol) -> bool {
        protocol == Protocol::Ndp
    }

    fn validate(raw: Raw, context: &SectionContext<'_>) -> Result<NdpSpec> {
        validate_ndp(raw, context.run)
    }

    fn describe(p: &NdpSpec) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("mtu".into(), json!(format!("{}B", p.mtu_bytes)));
        m.insert("queue".into(), json!(p.queue_packets));
        m.insert("initial_window".into(), json!(p.initial_window));
        m.insert("pull_rate".into(), json!(p.pull_rate));
        m.insert("rto".into(), json!(time(p.rto)));
        m.insert("return_to_sender".into(), json!(p.return_to_sender));
        m
    }

    fn heading(_spec: &NdpSpec) -> String {
        "[ndp] in effect (NDP's defaults with the file's keys; every port trims past its data queue and serves headers \
         first, every host paces its PULLs; a packet carries a 64 B header):"
            .into()
    }
}

/// NDP's settings (`[ndp]`). The defaults are those of the authors' own examples of htsim
/// (Broadcom/csg-htsim, `sim/EXAMPLES/incast_shortflows` and `permutation`, the setting of the
/// paper's Figures 14 and 16): 9000 B packets, data queues of 8 packets, a first window of 23
/// packets; PULLs paced at 99% of the receiver's link (`main_ndp.cpp`). htsim's `main_ndp`
/// defaults differ (15-packet queues, a window of 15, 100 Gbps): docs/ndp.md says why incast
/// follows the examples. The timeout is incast's own (htsim's NDP has none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NdpSpec {
    /// Payload bytes of a full packet; every packet adds a 64 B header.
    pub mtu_bytes: u32,
    /// A port's data queue, in full packets of `mtu_bytes` (htsim's `-q`, counted in bytes:
    /// `queue x mtu` bytes, the packet being sent and the headers of those waiting included, so
    /// that 8 holds seven 9064 B packets); headers may take twice that.
    pub queue_packets: u32,
    /// Packets a sender sends before its first PULL.
    pub initial_window: u32,
    /// The share of the receiver's link its PULLs are paced at: one per full packet's time at
    /// that share of the rate.
    pub pull_rate: f64,
    /// How long a sender waits for an answer before sending a packet again (incast's own).
    pub rto: Duration,
    /// Whether a switch port returns a header it has no room for to its sender (NDP's
    /// return-to-sender), rather than dropping it. On, as in the authors' simulator that made the
    /// paper's results (nets-cs-pub-ro/NDP, `compositequeue.cpp`, which always bounces) and as
    /// the examples' READMEs say; htsim 841d9e7 has the switch (`setRTS`) but nothing turns it on
    /// (docs/ndp.md).
    pub return_to_sender: bool,
}

impl Default for NdpSpec {
    fn default() -> Self {
        NdpSpec { mtu_bytes: 9000, queue_packets: 8, initial_window: 23, pull_rate: 0.99, rto: Duration::from_ms(10), return_to_sender: true }
    }
}

/// `[ndp]` as the file writes it.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    pub(crate) mtu: Option<Size>,
    pub(crate) queue: Option<u64>,
    pub(crate) initial_window: Option<u64>,
    pub(crate) pull_rate: Option<f64>,
    pub(crate) rto: Option<Time>,
    pub(crate) return_to_sender: Option<bool>,
}

/// The largest NDP packet payload: a jumbo frame's 9000 B, with room for larger.
const NDP_MAX_MTU: u64 = 65_000;
/// The largest data queue or first window, in packets.
const NDP_MAX_PACKETS: u64 = 1_000_000;

/// `[ndp]`, defaults from the authors' examples ([`NdpSpec`]): a payload of 1 to 65,000 B, a
/// data queue of at least one packet (0 would trim every packet and deliver none), a first
/// window of at least one packet (a sender needs one to draw the first PULL), a pull rate in
/// (0, 1], a positive timeout within the horizon.
fn validate_ndp(raw: Raw, run: &RunSpec) -> Result<NdpSpec> {
    let at = |key: &str| join("ndp", key);
    let d = NdpSpec::default();
    let mtu_bytes = match raw.mtu {
        None => d.mtu_bytes,
        Some(Size(b)) => count(|| at("mtu"), b, 1, NDP_MAX_MTU)?,
    };
    let queue_packets = match raw.queue {
        None => d.queue_packets,
        Some(n) => count(|| at("queue"), n, 1, NDP_MAX_PACKETS)?,
    };
    let initial_window = match raw.initial_window {
        None => d.initial_window,
        Some(n) => count(|| at("initial_window"), n, 1, NDP_MAX_PACKETS)?,
    };
    let pull_rate = finite(&at("pull_rate"), raw.pull_rate.unwrap_or(d.pull_rate))?;
    if !(pull_rate > 0.0 && pull_rate <= 1.0) {
        return Err(err(at("pull_rate"), format!("must be above 0 and at most 1, a share of the link (found {pull_rate})")));
    }
    limits::within_horizon(|| at("rto"), raw.rto, run)?;
    let rto = positive_time(|| at("rto"), raw.rto, d.rto)?;
    let return_to_sender = raw.return_to_sender.unwrap_or(d.return_to_sender);
    Ok(NdpSpec { mtu_bytes, queue_packets, initial_window, pull_rate, rto, return_to_sender })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{assert_bad, burst, malformed, star, toml};

    /// A star whose flows run NDP; `[ndp]` keys follow it.
    macro_rules! ndp {
        () => {
            concat!(star!(), burst!(), "[transport]\nprotocol = \"ndp\"\n[ndp]\n")
        };
    }

    #[test]
    fn ndp_keys_override_the_authors_defaults() {
        let s = toml(concat!(ndp!(), "mtu = \"1500B\"\nqueue = 15\ninitial_window = 15\npull_rate = 1.0\nrto = \"2ms\"\nreturn_to_sender = false\n"));
        let spec = NdpSpec { mtu_bytes: 1500, queue_packets: 15, initial_window: 15, pull_rate: 1.0, rto: Duration::from_ms(2), return_to_sender: false };
        assert_eq!(s.sections.ndp, spec);
        assert!(s.runs(Protocol::Ndp) && !s.runs(Protocol::Pdq));
        let d = toml(ndp!()).sections.ndp;
        assert_eq!((d.mtu_bytes, d.queue_packets, d.initial_window), (9000, 8, 23), "htsim's EXAMPLES settings");
        assert!(d.return_to_sender, "the paper's simulator bounces");
    }

    #[test]
    fn ndp_runs_alone_and_says_why() {
        assert_bad(
            concat!(star!(), burst!(), "[transport]\nprotocol = \"ndp\"\n", burst!(), "protocol = \"dctcp\"\n"),
            "workload[1].protocol",
            "NDP cannot share a network with other protocols: workload[0] runs ndp and workload[1] runs dctcp; NDP's ports trim",
        );
    }

    malformed! {
        ndp_queue_of_zero: concat!(ndp!(), "queue = 0\n"), "ndp.queue", "must be between 1 and 1000000 (found 0)";
        ndp_window_of_zero: concat!(ndp!(), "initial_window = 0\n"), "ndp.initial_window", "must be between 1 and 1000000 (found 0)";
        ndp_mtu_of_zero: concat!(ndp!(), "mtu = \"0B\"\n"), "ndp.mtu", "must be between 1 and 65000 (found 0)";
        ndp_pull_rate_above_the_link: concat!(ndp!(), "pull_rate = 1.5\n"), "ndp.pull_rate", "must be above 0 and at most 1";
        ndp_pull_rate_of_zero: concat!(ndp!(), "pull_rate = 0.0\n"), "ndp.pull_rate", "must be above 0 and at most 1";
        ndp_rto_of_zero: concat!(ndp!(), "rto = \"0s\"\n"), "ndp.rto", "must be positive";
        ndp_rto_past_horizon: concat!(ndp!(), "rto = \"2s\"\n[run]\nhorizon = \"1s\"\n"), "ndp.rto", "could never elapse";
        ndp_return_to_sender_not_a_boolean: concat!(ndp!(), "return_to_sender = \"yes\"\n"), "ndp.return_to_sender", "invalid type: string \"yes\", expected a boolean";
        ndp_unknown_key: concat!(ndp!(), "trim = true\n"), "ndp.trim", "unknown key; expected one of `mtu`, `queue`, `initial_window`, `pull_rate`, `rto`, `return_to_sender`";
    }
}
