//! D2TCP's section (`[d2tcp]`, D2TCP Sections 3 and 4.2.4): its estimation gain and initial alpha
//! (following `[transport]`'s DCTCP keys unless set), the cap on d and the choices the paper
//! leaves open, as `incast_proto::cc::D2tcpConfig`.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use incast_proto::cc::{Clamp, D2tcpConfig, FixedD, RemainingBytes, TcUnits, D2TCP_DEFAULT_D_CAP};

use super::{Protocol, SectionContext};
use crate::check::{err, estimation_gain, finite, initial_alpha, Result};
use crate::error::join;
use crate::names::{Name, Named};

/// The `[d2tcp]` section.
pub(crate) struct Section;

/// `[d2tcp]` checked.
pub(crate) type Spec = D2tcpConfig;

impl super::Section for Section {
    type Raw = Raw;
    type Spec = D2tcpConfig;

    fn used_by(protocol: Protocol) -> bool {
        protocol == Protocol::D2tcp
    }

    fn validate(raw: Raw, context: &SectionContext<'_>) -> Result<D2tcpConfig> {
        validate_d2tcp(raw, context.transport.dctcp_g, context.transport.dctcp_initial_alpha)
    }

    fn describe(spec: &D2tcpConfig) -> Map<String, Value> {
        effective_d2tcp(spec)
    }

    fn heading(_spec: &D2tcpConfig) -> String {
        "[d2tcp] in effect (the defaults with the file's keys; g and initial_alpha follow [transport]'s DCTCP keys \
         unless set):"
            .into()
    }
}

/// `[d2tcp]` as the file writes it: D2TCP's gain, cap on d and the choices the paper leaves open.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    pub(crate) g: Option<f64>,
    pub(crate) initial_alpha: Option<f64>,
    pub(crate) d_cap: Option<f64>,
    pub(crate) past_deadline: Option<Name<FixedD>>,
    pub(crate) nothing_left: Option<Name<FixedD>>,
    pub(crate) remaining: Option<Name<RemainingBytes>>,
    pub(crate) tc_units: Option<Name<TcUnits>>,
    pub(crate) clamp: Option<Name<Clamp>>,
}

/// `[d2tcp]`. `g` and `initial_alpha` default to `[transport]`'s `dctcp_g` and
/// `dctcp_initial_alpha`, so that deadline-free D2TCP is the same DCTCP a scenario configures
/// (D2TCP Section 4.2.1: "All DCTCP and D2TCP parameters match"); the cap n defaults to the
/// paper's 2 (Section 4.2.4) and must exceed 1, since n = 1 is DCTCP itself.
fn validate_d2tcp(raw: Raw, dctcp_g: f64, dctcp_initial_alpha: f64) -> Result<D2tcpConfig> {
    let at = |key: &str| join("d2tcp", key);
    let d = D2tcpConfig::default();
    let g = estimation_gain(&at("g"), raw.g.unwrap_or(dctcp_g))?;
    let initial_alpha = initial_alpha(&at("initial_alpha"), raw.initial_alpha.unwrap_or(dctcp_initial_alpha))?;
    let d_cap = finite(&at("d_cap"), raw.d_cap.unwrap_or(D2TCP_DEFAULT_D_CAP))?;
    if d_cap <= 1.0 {
        return Err(err(
            at("d_cap"),
            format!("must be greater than 1: d is clamped to [1/d_cap, d_cap] (found {d_cap})"),
        ));
    }
    Ok(D2tcpConfig {
        g,
        initial_alpha,
        d_cap,
        past_deadline: raw.past_deadline.map_or(d.past_deadline, |n| n.0),
        nothing_left: raw.nothing_left.map_or(d.nothing_left, |n| n.0),
        remaining: raw.remaining.map_or(d.remaining, |n| n.0),
        tc_units: raw.tc_units.map_or(d.tc_units, |n| n.0),
        clamp: raw.clamp.map_or(d.clamp, |n| n.0),
    })
}

/// Every `[d2tcp]` key with the value in effect (`g` and `initial_alpha` follow `[transport]`'s
/// DCTCP keys unless the section sets its own), in file syntax.
pub fn effective_d2tcp(c: &D2tcpConfig) -> Map<String, Value> {
    let mut m = Map::new();
    let mut put = |key: &str, value: Value| {
        m.insert(key.to_string(), value);
    };
    put("g", json!(c.g));
    put("initial_alpha", json!(c.initial_alpha));
    put("d_cap", json!(c.d_cap));
    put("past_deadline", json!(c.past_deadline.name()));
    put("nothing_left", json!(c.nothing_left.name()));
    put("remaining", json!(c.remaining.name()));
    put("tc_units", json!(c.tc_units.name()));
    put("clamp", json!(c.clamp.name()));
    m
}

impl Named for FixedD {
    const WHAT: &'static str = "fixed d";
    const NAMES: &'static [(&'static str, Self)] = &[("one", FixedD::One), ("max", FixedD::Max), ("min", FixedD::Min)];
}

impl Named for TcUnits {
    const WHAT: &'static str = "Tc unit";
    const NAMES: &'static [(&'static str, Self)] =
        &[("seconds", TcUnits::Seconds), ("round-trips", TcUnits::RoundTrips)];
}

impl Named for Clamp {
    const WHAT: &'static str = "clamp";
    const NAMES: &'static [(&'static str, Self)] = &[("both", Clamp::Both), ("upper", Clamp::Upper)];
}

impl Named for RemainingBytes {
    const WHAT: &'static str = "remaining-bytes measure";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("unacked", RemainingBytes::Unacked),
        ("unsent", RemainingBytes::Unsent),
    ];
}

