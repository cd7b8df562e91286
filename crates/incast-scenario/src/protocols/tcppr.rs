//! TCPpr's section (`[tcppr]`, D3 Section 6.1.1): how a flow's deadline picks its strict-priority
//! class ([`TcpPrSpec`]), and the check that the switches have the classes it needs.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use incast_proto::time::Duration;

use super::{Checked, Protocol, SectionContext};
use crate::check::{err, positive_time, Result};
use crate::units::time_text as time;
use crate::units::Time;

/// The `[tcppr]` section.
pub(crate) struct Section;

/// `[tcppr]` checked.
pub(crate) type Spec = TcpPrSpec;

impl super::Section for Section {
    type Raw = Raw;
    type Spec = TcpPrSpec;

    fn used_by(protocol: Protocol) -> bool {
        protocol == Protocol::TcpPr
    }

    fn validate(raw: Raw, _context: &SectionContext<'_>) -> Result<TcpPrSpec> {
        validate_tcppr(raw)
    }

    fn check(spec: &TcpPrSpec, scenario: &Checked<'_>) -> Result<()> {
        check_priority_classes(spec, scenario)
    }

    fn describe(spec: &TcpPrSpec) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("thresholds".into(), json!(spec.thresholds.iter().map(|&t| time(t)).collect::<Vec<_>>()));
        m.insert("background_lowest".into(), json!(spec.background_lowest));
        m
    }

    fn heading(spec: &TcpPrSpec) -> String {
        format!(
            "[tcppr] in effect (the defaults with the file's keys; {} priority classes):",
            spec.classes_needed()
        )
    }
}

/// How TCPpr maps a flow's deadline to a strict-priority class (D3 Section 6.1.1: "flows with
/// short deadlines are mapped to the higher priority class").
#[derive(Clone, Debug, PartialEq)]
pub struct TcpPrSpec {
    /// Rising deadline thresholds: a flow whose relative deadline is below `thresholds[i]` (and
    /// not below an earlier one) gets class i; longer deadlines get class `thresholds.len()`.
    pub thresholds: Vec<Duration>,
    /// Flows without a deadline go to a class of their own below every deadline class (D3's
    /// three-level TCPpr with background flows); otherwise they share the last deadline class.
    pub background_lowest: bool,
}

impl Default for TcpPrSpec {
    /// Two deadline classes split at 30 ms (D3's "moderate" mean deadline; the paper gives no
    /// threshold), background flows lowest: D3's two and three-level TCPpr.
    fn default() -> Self {
        TcpPrSpec { thresholds: vec![Duration::from_ms(30)], background_lowest: true }
    }
}

impl TcpPrSpec {
    /// The class of a flow with relative deadline `deadline`.
    pub fn class_of(&self, deadline: Option<Duration>) -> u8 {
        let deadline_classes = self.thresholds.len() as u8;
        match deadline {
            Some(d) => self.thresholds.iter().position(|&t| d < t).map_or(deadline_classes, |i| i as u8),
            None if self.background_lowest => deadline_classes + 1,
            None => deadline_classes,
        }
    }

    /// Priority classes the switches need.
    pub fn classes_needed(&self) -> u8 {
        self.thresholds.len() as u8 + 1 + u8::from(self.background_lowest)
    }
}

/// `[tcppr]` as the file writes it: TCPpr's deadline classes.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Raw {
    pub(crate) thresholds: Option<Vec<Time>>,
    pub(crate) background_lowest: Option<bool>,
}

/// `[tcppr]`: rising, positive thresholds, at most 7 (8 classes with background flows).
fn validate_tcppr(raw: Raw) -> Result<TcpPrSpec> {
    let d = TcpPrSpec::default();
    let thresholds = match raw.thresholds {
        None => d.thresholds,
        Some(list) => {
            if list.is_empty() || list.len() > 7 {
                return Err(err("tcppr.thresholds", format!("must list 1 to 7 deadlines (found {})", list.len())));
            }
            let mut out: Vec<Duration> = Vec::with_capacity(list.len());
            for (i, t) in list.into_iter().enumerate() {
                let t = positive_time(|| format!("tcppr.thresholds[{i}]"), Some(t), Duration::ZERO)?;
                if out.last().is_some_and(|&prev| t <= prev) {
                    return Err(err(format!("tcppr.thresholds[{i}]"), "thresholds must rise strictly"));
                }
                out.push(t);
            }
            out
        }
    };
    Ok(TcpPrSpec { thresholds, background_lowest: raw.background_lowest.unwrap_or(d.background_lowest) })
}

/// TCPpr puts each flow in the strict-priority class its deadline picks (D3 Section 6.1.1), so
/// when some workload's flows run TCPpr the switches need every class `[tcppr]` defines.
fn check_priority_classes(tcppr: &TcpPrSpec, scenario: &Checked<'_>) -> Result<()> {
    let switch = scenario.switch;
    let needed = tcppr.classes_needed();
    if needed <= switch.priority_classes {
        return Ok(());
    }
    let Some(i) = scenario.first_running(Protocol::TcpPr) else {
        return Ok(());
    };
    let background = if tcppr.background_lowest { ", 1 for flows without a deadline" } else { "" };
    Err(err(
        "tcppr.thresholds",
        format!(
            "TCPpr, which workload[{i}] runs, needs {needed} priority classes ({} for the deadline classes \
             its thresholds split{background}), but switch.priority_classes = {}: raise \
             switch.priority_classes to {needed}, or give fewer thresholds",
            tcppr.thresholds.len() + 1,
            switch.priority_classes
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcppr_maps_short_deadlines_high_and_background_lowest() {
        let spec = TcpPrSpec { thresholds: vec![Duration::from_ms(20), Duration::from_ms(40)], background_lowest: true };
        assert_eq!(spec.class_of(Some(Duration::from_ms(5))), 0);
        assert_eq!(spec.class_of(Some(Duration::from_ms(20))), 1, "a threshold belongs to the next class");
        assert_eq!(spec.class_of(Some(Duration::from_ms(90))), 2);
        assert_eq!(spec.class_of(None), 3);
        assert_eq!(spec.classes_needed(), 4);
        let shared = TcpPrSpec { background_lowest: false, ..spec };
        assert_eq!((shared.class_of(None), shared.classes_needed()), (2, 3));
    }
}
