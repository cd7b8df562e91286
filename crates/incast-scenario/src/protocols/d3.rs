//! D3's transport in a scenario (D3 Sections 4 and 5), and RCPdc, D3 without deadlines
//! (Section 6.1): the `[d3]` section of hosts and routers ([`D3Spec`], its variants and keys, their
//! checks and what `incast check` shows of them), and D3's rules: a 22-byte congestion header on
//! its packets, no SACK or PRR (losses repaired NewReno's way under the rate budget), no packet
//! spraying, a connection per flow.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use incast_proto::d3::{self, BaseGrant, Controller, Pacing};
use incast_proto::time::Duration;

use super::{Checked, Protocol, SectionContext, TransportRules};
use crate::check::{err, finite, positive, positive_time, Result};
use crate::units::{rate_text, time_text as time};
use crate::error::join;
use crate::names::{Name, Named};
use crate::units::{Rate, Time};
use crate::limits;
use crate::spec::RunSpec;

/// D3's rules.
pub(crate) struct Rules;

impl TransportRules for Rules {
    const NO_SPRAY: Option<&'static str> = Some(
        "a D3 request carries the previous grant of each router on its path for that router to take back, and a \
         sprayed flow's requests cross different routers each time",
    );
    const HEADER_BYTES: u32 = d3::D3_HEADER_BYTES;
    const KEEPS_CONNECTIONS: bool = false;
    const REFUSES: (&'static [&'static str], &'static str) = (
        &["sack", "prr", "partial_ack_retransmit"],
        "recovers losses under its rate budget without SACK or PRR; they apply to TCP-family protocols only",
    );
}

/// The `[d3]` section.
pub(crate) struct Section;

/// `[d3]` checked.
pub(crate) type Spec = D3Spec;

impl super::Section for Section {
    type Raw = Raw;
    type Spec = D3Spec;

    fn used_by(protocol: Protocol) -> bool {
        matches!(protocol, Protocol::D3 | Protocol::Rcpdc)
    }

    fn validate(raw: Raw, context: &SectionContext<'_>) -> Result<D3Spec> {
        validate_d3(raw, context.run)
    }

    fn check(spec: &D3Spec, scenario: &Checked<'_>) -> Result<()> {
        if !scenario.runs_transport_of(Protocol::D3) {
            return Ok(());
        }
        check_control_interval(spec, scenario.topology.fastest_link_rate())?;
        check_capacity(spec, scenario.topology.host_link_rate())
    }

    fn describe(spec: &D3Spec) -> Map<String, Value> {
        effective_d3(spec)
    }

    fn heading(spec: &D3Spec) -> String {
        format!("[d3] in effect (variant \"{}\" with the file's keys; \"paper\" is D3 as printed):", spec.variant.name())
    }
}

/// Which D3 the `[d3]` keys start from: the paper's, or the paper's with incast's repairs. Every
/// key of the table overrides the variant's value for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum D3Variant {
    /// D3 as its paper prints it: the Section 4.4 controller as printed, each grant truncated on
    /// its own, no time slices, grants of dropped requests not taken back, requests once per RTT.
    Paper,
    /// The paper's D3 with incast's repairs (docs/scenario.md, `[d3]`): time slices, the carried
    /// remainder, reclaimed grants of dropped requests, requests paced to the base rate.
    Repaired,
}

/// Parameters of D3 and RCPdc, hosts and routers (D3 Sections 4.4, 4.5, 5 and 6.1.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D3Spec {
    /// The variant the other values started from (they already include it).
    pub variant: D3Variant,
    /// Terminate flows whose desired rate exceeds the uplink or whose deadline has passed
    /// (Section 6.1.3).
    pub quench: bool,
    /// Round rates as the 8-bit header fields carry them (Section 5); `false` keeps exact rates.
    pub quantize: bool,
    /// The rate routers count for a flow at the base-rate grant, in bytes per second: one
    /// header-only packet per RTT (Section 4.2), or one full packet with `BaseGrant::OneSegment`.
    pub base_rate_bytes_per_sec: u64,
    /// What a flow at the base-rate grant sends each RTT: only its request (D3), or one segment
    /// (the D2TCP paper's D3).
    pub base_grant: BaseGrant,
    /// How a host spends an interval's allocation: at once (D3's stack) or paced at the rate.
    pub pacing: Pacing,
    /// Capacity control interval T (Section 4.4, footnote 4: 800 us).
    pub control_interval: Duration,
    /// Capacity control gain on spare bandwidth (footnote 4: 0.1).
    pub alpha: f64,
    /// Capacity control gain on the queue (footnote 4: 1).
    pub beta: f64,
    /// New flows get the base rate as their fair-share part for one RTT (Section 4.5).
    pub new_flow_pause: bool,
    /// The form of the capacity controller (Section 4.4 as printed, RCP's link form, or fixed).
    pub controller: Controller,
    /// Lowest capacity C, as a multiple of the port's link rate (the paper gives none).
    pub capacity_min: f64,
    /// Highest capacity C, as a multiple of the port's link rate (the paper gives none).
    pub capacity_max: f64,
    /// Time-slice spare capacity when fair shares are below one unit of the field (incast's).
    pub time_slices: bool,
    /// Carry what truncation to the field cuts off into the next grant (incast's).
    pub carry_remainder: bool,
    /// Take back the grant of a request the port then drops (incast's).
    pub reclaim_dropped: bool,
    /// Pace requests to the base rate (incast's).
    pub pace_requests: bool,
}

impl D3Spec {
    /// The values of `variant`, from the paper (footnote 4's gains, Sections 4.2 and 4.5's base
    /// rate and pause) with or without incast's repairs.
    pub fn of(variant: D3Variant) -> Self {
        use incast_proto::d3;
        let repaired = variant == D3Variant::Repaired;
        D3Spec {
            variant,
            quench: false,
            quantize: true,
            base_rate_bytes_per_sec: d3::base_rate(d3::HEADER_ONLY_PACKET_BYTES, d3::TYPICAL_RTT),
            base_grant: BaseGrant::HeaderOnly,
            pacing: Pacing::Burst,
            control_interval: d3::CONTROL_INTERVAL,
            alpha: d3::ALPHA,
            beta: d3::BETA,
            new_flow_pause: true,
            controller: Controller::Printed,
            capacity_min: CAPACITY_MIN,
            capacity_max: CAPACITY_MAX,
            time_slices: repaired,
            carry_remainder: repaired,
            reclaim_dropped: repaired,
            pace_requests: repaired,
        }
    }
}

/// The default lowest C, the link (incast-proto's `RouterConfig::for_link` says why).
pub const CAPACITY_MIN: f64 = 1.0;
/// The default highest C, twice the link (incast-proto's `RouterConfig::for_link` says why).
pub const CAPACITY_MAX: f64 = 2.0;

impl Default for D3Spec {
    /// The paper's D3: no quenching, 8-bit rates, base rate one 62 B header-only packet per
    /// 300 us, T = 800 us, alpha = 0.1, beta = 1, new flows paused one RTT, the controller as
    /// printed, none of incast's repairs.
    fn default() -> Self {
        D3Spec::of(D3Variant::Paper)
    }
}

/// `[d3]` as the file writes it.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    pub(crate) variant: Option<Name<D3Variant>>,
    pub(crate) quench: Option<bool>,
    pub(crate) quantize: Option<bool>,
    pub(crate) base_rate: Option<Rate>,
    pub(crate) base_grant: Option<Name<BaseGrant>>,
    pub(crate) pacing: Option<Name<Pacing>>,
    pub(crate) control_interval: Option<Time>,
    pub(crate) alpha: Option<f64>,
    pub(crate) beta: Option<f64>,
    pub(crate) new_flow_pause: Option<bool>,
    pub(crate) controller: Option<Name<Controller>>,
    pub(crate) capacity_min: Option<f64>,
    pub(crate) capacity_max: Option<f64>,
    pub(crate) time_slices: Option<bool>,
    pub(crate) carry_remainder: Option<bool>,
    pub(crate) reclaim_dropped: Option<bool>,
    pub(crate) pace_requests: Option<bool>,
}

/// `[d3]`, defaults from the paper (D3 Section 4.4 footnote 4, Sections 4.2 and 4.5), or from the
/// paper with incast's repairs (`variant = "repaired"`); every other key overrides the variant.
fn validate_d3(raw: Raw, run: &RunSpec) -> Result<D3Spec> {
    let at = |key: &str| join("d3", key);
    limits::within_horizon(|| at("control_interval"), raw.control_interval, run)?;
    let gain = |key: &str, value: Option<f64>, default: f64| -> Result<f64> {
        let v = finite(&at(key), value.unwrap_or(default))?;
        if v < 0.0 {
            return Err(err(at(key), format!("must not be negative (found {v})")));
        }
        Ok(v)
    };
    let d = D3Spec::of(raw.variant.map_or(D3Variant::Paper, |n| n.0));
    let base_grant = raw.base_grant.map_or(d.base_grant, |n| n.0);
    let base_rate_bytes_per_sec = match (raw.base_rate, base_grant) {
        (Some(r), _) => positive(|| at("base_rate"), r.0 / 8, "bytes per second")?,
        (None, BaseGrant::HeaderOnly) => d.base_rate_bytes_per_sec,
        // D3 Section 4.5: "one 1500-byte packet per RTT equates to a send rate of 40Mbps".
        (None, BaseGrant::OneSegment) => d3::base_rate(d3::FULL_PACKET_BYTES, d3::TYPICAL_RTT),
    };
    let capacity_min = gain("capacity_min", raw.capacity_min, d.capacity_min)?;
    let capacity_max = gain("capacity_max", raw.capacity_max, d.capacity_max)?;
    if capacity_max == 0.0 {
        return Err(err(at("capacity_max"), "must be positive: a port with no capacity serves no flow"));
    }
    if capacity_min > capacity_max {
        return Err(err(
            at("capacity_min"),
            format!("must not exceed capacity_max ({capacity_min} > {capacity_max})"),
        ));
    }
    if capacity_max > CAPACITY_MAX_LIMIT {
        return Err(err(
            at("capacity_max"),
            format!("must be at most {CAPACITY_MAX_LIMIT} times the link (found {capacity_max})"),
        ));
    }
    Ok(D3Spec {
        variant: d.variant,
        quench: raw.quench.unwrap_or(d.quench),
        quantize: raw.quantize.unwrap_or(d.quantize),
        base_rate_bytes_per_sec,
        base_grant,
        pacing: raw.pacing.map_or(d.pacing, |n| n.0),
        control_interval: positive_time(|| at("control_interval"), raw.control_interval, d.control_interval)?,
        alpha: gain("alpha", raw.alpha, d.alpha)?,
        beta: gain("beta", raw.beta, d.beta)?,
        new_flow_pause: raw.new_flow_pause.unwrap_or(d.new_flow_pause),
        controller: raw.controller.map_or(d.controller, |n| n.0),
        capacity_min,
        capacity_max,
        time_slices: raw.time_slices.unwrap_or(d.time_slices),
        carry_remainder: raw.carry_remainder.unwrap_or(d.carry_remainder),
        reclaim_dropped: raw.reclaim_dropped.unwrap_or(d.reclaim_dropped),
        pace_requests: raw.pace_requests.unwrap_or(d.pace_requests),
    })
}

/// D3's capacity update against the network, its fastest link `fastest`: the interval must be
/// at least one full-size packet's serialization there. A shorter T fires every port's update
/// before a packet can cross any link, so u(t) measures nothing and the updates alone cost an
/// event per port per T (at 1 ps, 10^12 a simulated second each). The paper's T (800 us,
/// footnote 4) exceeds the RTT.
fn check_control_interval(spec: &D3Spec, fastest: incast_proto::time::BitsPerSec) -> Result<()> {
    let bound = fastest.tx_time(d3::FULL_PACKET_BYTES);
    if spec.control_interval < bound {
        return Err(err(
            "d3.control_interval",
            format!(
                "{} is shorter than one full-size packet's serialization on the network's fastest link \
                 ({} B at {}: {}): every port's capacity update would fire before a packet could cross it; \
                 give at least {} (D3's is 800us, above the round trip)",
                time(spec.control_interval),
                d3::FULL_PACKET_BYTES,
                rate_text(fastest),
                time(bound),
                time(bound)
            ),
        ));
    }
    Ok(())
}

/// D3's capacity against the network, its host links at most `fastest`: without time slices no
/// grant exceeds a port's capacity C (Snippet 1 hands out C − D to flows whose demand D already
/// counts theirs), and C is at most `capacity_max` x the port's link; every flow crosses the
/// downlink to its receiver, a host link. If even `capacity_max` of the fastest host link is
/// granted as the base grant (at most the base rate, or, in the 8-bit field, less than a unit
/// above it), a flow at the base grant sends its header-only request and nothing else
/// (`base_grant = "header-only"`), every RTT, for ever: no D3 flow could deliver a byte
/// (issue 39). Time slices grant a turn above the base rate whatever C is, and a one-segment
/// base grant sends data, so neither is refused. A cap above the bound can still pause every flow
/// (a fair share below one unit of the field for each of several flows); the progress watchdog
/// (`[run] stall_after`) stops such a run.
fn check_capacity(spec: &D3Spec, fastest: incast_proto::time::BitsPerSec) -> Result<()> {
    if spec.time_slices || spec.base_grant != BaseGrant::HeaderOnly {
        return Ok(());
    }
    let link = incast_proto::rate::from_bits_per_sec(fastest);
    let field = d3::RateField::new(spec.quantize, link);
    let base = spec.base_rate_bytes_per_sec;
    // The engine's capacity bound for that link (`as` rounds toward zero, as the routers do).
    let capacity = (link as f64 * spec.capacity_max) as u64;
    if field.grant(capacity, base) != d3::BASE_GRANT {
        return Ok(());
    }
    // The smallest rate the field grants above the base grant.
    let unit = field.unit();
    let floor = (base / unit + 1).saturating_mul(unit);
    if field.grant(floor, base) == d3::BASE_GRANT {
        return Err(err(
            "d3.base_rate",
            format!(
                "{} B/s is at least the largest grant the header's 8-bit field carries on this network ({} B/s): \
                 every grant would be the base grant and no D3 flow could send data",
                base,
                field.grant(u64::MAX, 0)
            ),
        ));
    }
    let needed = ((floor as f64 / link as f64) * 1e6).ceil() / 1e6;
    let field_rule = match field {
        d3::RateField::Exact => format!("1 B/s above the base rate, {base} B/s"),
        d3::RateField::Quantized { .. } => {
            format!("whole units of the header's 8-bit field, {unit} B/s each here, above the base rate, {base} B/s")
        }
    };
    Err(err(
        "d3.capacity_max",
        format!(
            "{} x the fastest host link ({}) is {capacity} B/s, less than the smallest grant above the base grant \
             ({floor} B/s: {field_rule}): without time slices no grant exceeds a port's capacity, so every D3 flow \
             would send its rate requests and no data, for ever; give at least {needed} (or time_slices = true)",
            spec.capacity_max,
            rate_text(fastest),
        ),
    ))
}

/// The largest `capacity_max`, in multiples of the link: far above any use (the header's largest
/// grant is 255 units, about 2 x the fastest link), low enough that C in bytes per second stays
/// exact in the controller's float arithmetic at any link rate the topology accepts.
const CAPACITY_MAX_LIMIT: f64 = 1000.0;

/// Every `[d3]` key with the value in effect (`base_rate` in bits per second, as `"…bps"`), in
/// file syntax.
pub fn effective_d3(d: &D3Spec) -> Map<String, Value> {
    let mut m = Map::new();
    let mut put = |key: &str, value: Value| {
        m.insert(key.to_string(), value);
    };
    put("variant", json!(d.variant.name()));
    put("quench", json!(d.quench));
    put("quantize", json!(d.quantize));
    put("base_rate", json!(format!("{}bps", d.base_rate_bytes_per_sec.saturating_mul(8))));
    put("base_grant", json!(d.base_grant.name()));
    put("pacing", json!(d.pacing.name()));
    put("control_interval", json!(time(d.control_interval)));
    put("alpha", json!(d.alpha));
    put("beta", json!(d.beta));
    put("new_flow_pause", json!(d.new_flow_pause));
    put("controller", json!(d.controller.name()));
    put("capacity_min", json!(d.capacity_min));
    put("capacity_max", json!(d.capacity_max));
    put("time_slices", json!(d.time_slices));
    put("carry_remainder", json!(d.carry_remainder));
    put("reclaim_dropped", json!(d.reclaim_dropped));
    put("pace_requests", json!(d.pace_requests));
    m
}

impl Named for Pacing {
    const WHAT: &'static str = "pacing";
    const NAMES: &'static [(&'static str, Self)] = &[("burst", Pacing::Burst), ("rate", Pacing::Rate)];
}

impl Named for D3Variant {
    const WHAT: &'static str = "D3 variant";
    const NAMES: &'static [(&'static str, Self)] = &[("paper", D3Variant::Paper), ("repaired", D3Variant::Repaired)];
}

impl Named for Controller {
    const WHAT: &'static str = "capacity controller";
    const NAMES: &'static [(&'static str, Self)] =
        &[("printed", Controller::Printed), ("link", Controller::Link), ("fixed", Controller::Fixed)];
}

impl Named for BaseGrant {
    const WHAT: &'static str = "base grant";
    const NAMES: &'static [(&'static str, Self)] =
        &[("header-only", BaseGrant::HeaderOnly), ("one-segment", BaseGrant::OneSegment)];
}

#[cfg(test)]
mod tests {
    use crate::fixtures::PORTS;
    use crate::{parse_toml, Scenario, ScenarioError};

    /// A flow burst of `protocol` on the 4-host 1 Gbps star (or `topology`), with `[d3]` keys `d3`.
    fn parse_on(topology: &str, protocol: &str, d3: &str) -> Result<Scenario, ScenarioError> {
        let text = format!(
            "[topology]\n{topology}\n[transport]\nprotocol = \"{protocol}\"\n[d3]\n{d3}\n[[workload]]\nkind = \"flow-burst\"\n"
        );
        parse_toml(&text, None, &PORTS)
    }

    fn parse(d3: &str) -> Result<Scenario, ScenarioError> {
        parse_on("kind = \"star\"\nhosts = 4", "d3", d3)
    }

    #[track_caller]
    fn refused(d3: &str, key: &str, needles: &[&str]) {
        let e = parse(d3).expect_err("refused");
        assert_eq!(e.path, key, "{e}");
        for needle in needles {
            assert!(e.message.contains(needle), "{needle:?} not in {e}");
        }
    }

    #[test]
    fn a_capacity_that_can_only_grant_the_base_rate_is_refused_with_the_least_that_can_do_more() {
        // The 8-bit field at 1 Gbps carries whole units of 1 MB/s (D3 Section 5), 0.008 of the
        // link: below one unit every grant truncates to the base grant.
        refused("capacity_min = 0.0\ncapacity_max = 0.0079", "d3.capacity_max", &["987500 B/s", "give at least 0.008"]);
        parse("capacity_min = 0.0\ncapacity_max = 0.008").expect("one unit can be granted");
        // Exact rates: anything above the base rate, 62 B per 300 us = 206,667 B/s, is a grant:
        // 206,668 / 125,000,000 = 0.00165334...
        refused("quantize = false\ncapacity_min = 0.0\ncapacity_max = 0.00165", "d3.capacity_max", &["give at least 0.001654"]);
        parse("quantize = false\ncapacity_min = 0.0\ncapacity_max = 0.001654").expect("1 B/s above the base rate");
    }

    #[test]
    fn time_slices_and_a_one_segment_base_grant_send_data_whatever_the_capacity() {
        parse("capacity_min = 0.0\ncapacity_max = 0.0001\ntime_slices = true").expect("a turn is granted a slice");
        parse("capacity_min = 0.0\ncapacity_max = 0.0001\nbase_grant = \"one-segment\"").expect("the base grant sends a segment");
    }

    #[test]
    fn a_base_rate_above_every_grant_of_the_field_is_refused() {
        // The largest grant at 1 Gbps is 255 units, 255 MB/s; 3 Gbps is 375 MB/s.
        refused("base_rate = \"3Gbps\"", "d3.base_rate", &["375000000 B/s", "255000000 B/s"]);
    }

    #[test]
    fn a_control_interval_shorter_than_a_packet_on_the_fastest_link_is_refused() {
        // 1500 B at 1 Gbps: 12 us.
        refused("control_interval = \"11999ns\"", "d3.control_interval", &["12us", "1Gbps"]);
        parse("control_interval = \"12us\"").expect("one packet per interval");
        // On the leaf-spine the fastest links are the 40 Gbps fabric: 300 ns.
        let leaf_spine = "kind = \"leaf-spine\"\nracks = 2\nhosts_per_rack = 2";
        let e = parse_on(leaf_spine, "d3", "control_interval = \"299ns\"").expect_err("refused");
        assert!(e.message.contains("40Gbps: 300ns"), "{e}");
        parse_on(leaf_spine, "d3", "control_interval = \"300ns\"").expect("one packet on the fabric");
    }

    #[test]
    fn the_checks_apply_when_d3_or_rcpdc_flows_run() {
        let tiny = "capacity_min = 0.0\ncapacity_max = 0.0001";
        parse_on("kind = \"star\"\nhosts = 4", "tcp", tiny).expect("no D3 flow reads it");
        let e = parse_on("kind = \"star\"\nhosts = 4", "rcpdc", tiny).expect_err("RCPdc is D3");
        assert_eq!(e.path, "d3.capacity_max");
    }
}
