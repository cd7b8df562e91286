//! PDQ's transport in a scenario (Hong, Caesar, Godfrey, SIGCOMM 2012; docs/pdq.md): the `[pdq]`
//! section of its ports and hosts ([`PdqSpec`]), and PDQ's rules: a 20-byte scheduling header on
//! every packet, ports that are its own (it runs alone), no SACK or PRR, no packet spraying, a
//! connection per flow.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use incast_proto::time::Duration;

use super::{Protocol, SectionContext, TransportRules};
use crate::check::{count, err, finite, Result};
use crate::units::time_text as time;
use crate::error::join;
use crate::units::Time;
use crate::limits;
use crate::spec::RunSpec;

/// PDQ's rules.
pub(crate) struct Rules;

impl TransportRules for Rules {
    const ALONE: Option<&'static str> = Some(
        "PDQ's ports hand out their whole link to the PDQ flows they know of, and only PDQ packets carry the header they schedule by",
    );
    const NO_SPRAY: Option<&'static str> =
        Some("a PDQ port schedules the flows whose packets and ACKs it sees, and a sprayed flow's packets cross different ports each time");
    const HEADER_BYTES: u32 = incast_proto::pdq::PDQ_HEADER_BYTES;
    const KEEPS_CONNECTIONS: bool = false;
    const REFUSES: (&'static [&'static str], &'static str) = (
        &["sack", "prr", "partial_ack_retransmit"],
        "recovers losses under its rate budget without SACK or PRR; they apply to TCP-family protocols only",
    );
}

/// The `[pdq]` section.
pub(crate) struct Section;

/// `[pdq]` checked.
pub(crate) type Spec = PdqSpec;

impl super::Section for Section {
    type Raw = Raw;
    type Spec = PdqSpec;

    fn used_by(protocol: Protocol) -> bool {
        protocol == Protocol::Pdq
    }

    fn validate(raw: Raw, context: &SectionContext<'_>) -> Result<PdqSpec> {
        validate_pdq(raw, context.run)
    }

    fn describe(p: &PdqSpec) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("early_termination".into(), json!(p.early_termination));
        m.insert("early_start".into(), json!(p.early_start_rtts));
        m.insert("probe_spacing".into(), json!(p.probe_spacing));
        m.insert("dampening".into(), json!(time(p.dampening)));
        m.insert("flow_list".into(), json!(p.flow_list));
        m
    }

    fn heading(_spec: &PdqSpec) -> String {
        "[pdq] in effect (PDQ's defaults with the file's keys; its hosts use [transport]'s segments and timers without \
         SACK, and every port schedules the flows):"
            .into()
    }
}

/// PDQ's settings (`[pdq]`). The paper's constants as its one public implementation
/// (SymbioticLab/Aequitas, `ext/pdq_queue.cpp`) cites them: Early Start for flows within K = 2
/// RTTs of finishing, Suppressed Probing with X = 0.2; that code's 10 us dampening (the paper
/// prints no value) and its list of 2 x 100 flows (the paper's list is 2κ, κ the flows sending).
/// docs/pdq.md gives each rule's source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PdqSpec {
    /// Early Termination: a flow with a deadline gives up when it cannot meet it.
    pub early_termination: bool,
    /// K of Early Start, in RTTs.
    pub early_start_rtts: u32,
    /// X of Suppressed Probing, in RTTs per place in a port's list.
    pub probe_spacing: f64,
    /// After accepting a paused flow, a port accepts no other paused flow for this long.
    pub dampening: Duration,
    /// The most flows a port's list holds.
    pub flow_list: u32,
}

impl Default for PdqSpec {
    fn default() -> Self {
        PdqSpec { early_termination: true, early_start_rtts: 2, probe_spacing: 0.2, dampening: Duration::from_us(10), flow_list: 200 }
    }
}

/// `[pdq]` as the file writes it.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    pub(crate) early_termination: Option<bool>,
    pub(crate) early_start: Option<u64>,
    pub(crate) probe_spacing: Option<f64>,
    pub(crate) dampening: Option<Time>,
    pub(crate) flow_list: Option<u64>,
}

/// The most flows a PDQ port's list may hold: far above the 2 x 100 of PDQ's public code (each
/// packet scans the flows ahead of its own in the list).
const PDQ_MAX_FLOW_LIST: u64 = 100_000;

/// `[pdq]`, defaults from PDQ's public code ([`PdqSpec`]): K and the flow list at least 1
/// (a list of 0 could schedule nothing), X finite and in [0, 100] RTTs, a dampening time
/// within the horizon (0 turns Dampening off).
fn validate_pdq(raw: Raw, run: &RunSpec) -> Result<PdqSpec> {
    let at = |key: &str| join("pdq", key);
    let d = PdqSpec::default();
    let early_start_rtts = match raw.early_start {
        None => d.early_start_rtts,
        Some(n) => count(|| at("early_start"), n, 0, 1_000)?,
    };
    let probe_spacing = finite(&at("probe_spacing"), raw.probe_spacing.unwrap_or(d.probe_spacing))?;
    if !(0.0..=100.0).contains(&probe_spacing) {
        return Err(err(at("probe_spacing"), format!("must be between 0 and 100 RTTs (found {probe_spacing})")));
    }
    limits::within_horizon(|| at("dampening"), raw.dampening, run)?;
    let dampening = raw.dampening.map_or(d.dampening, |t| Duration::from_ps(t.0));
    let flow_list = match raw.flow_list {
        None => d.flow_list,
        Some(n) => count(|| at("flow_list"), n, 1, PDQ_MAX_FLOW_LIST)?,
    };
    Ok(PdqSpec { early_termination: raw.early_termination.unwrap_or(d.early_termination), early_start_rtts, probe_spacing, dampening, flow_list })
}

