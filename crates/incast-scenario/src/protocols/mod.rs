//! What each transport of the registry (`registry::for_each_transport!`) says about itself in a
//! scenario: its sections' keys, defaults, checks and what `incast check` shows of them
//! ([`Section`]), and the rules its flows follow ([`TransportRules`]); and, expanded from the
//! registry, every section of the file ([`ProtocolSections`]) and every protocol's rules.
//!
//! A *transport* is one implementation in the engine (its endpoints, what its packets carry, what
//! its ports do); a *protocol* is a name a scenario file gives to a flow (`protocol = "dctcp"`).
//! Several protocols may share a transport: TCP's serves `tcp`, `dctcp`, `d2tcp` and `tcppr`,
//! which differ in congestion policy and priority class; D3's serves `d3` and `rcpdc`. A
//! *section* is a protocol's own table in the file (`[d3]`).
//!
//! Every layer that needs the list expands the registry with a macro of its own, so adding a
//! transport edits the list once (docs/adding-a-transport.md):
//!
//! ```text
//!  for_each_transport!(callback)             (registry.rs)
//!     ├─ incast-scenario: Protocol, its names and labels (registry.rs); its rules and
//!     │                   ProtocolSections (here); the file's sections (file::RawScenario)
//!     └─ incast-sim:      the engine's dispatch over transports (incast-sim/src/transport/registry.rs)
//! ```
//!
//! Modules, one per transport and one per section: `tcp` (its rules), `d2tcp` and `tcppr` (TCP's
//! sections), `d3`, `pdq` and `pfabric` (each a transport with one section of its name).

pub(crate) mod d2tcp;
pub(crate) mod d3;
pub(crate) mod ndp;
pub(crate) mod pdq;
pub(crate) mod pfabric;
pub(crate) mod tcp;
pub(crate) mod tcppr;

use serde_json::{Map, Value};

use crate::check::{err, Result};
use crate::registry::Protocol;
use crate::spec::{SwitchSpec, TransportSpec, WorkloadSpec};
use crate::RunSpec;

/// What checking a section may read: `[transport]` and `[run]`, checked before it.
pub(crate) struct SectionContext<'a> {
    pub(crate) transport: &'a TransportSpec,
    pub(crate) run: &'a RunSpec,
}

/// What a section's whole-scenario check may read, once the workloads are checked.
pub(crate) struct Checked<'a> {
    pub(crate) transport: &'a TransportSpec,
    pub(crate) switch: &'a SwitchSpec,
    pub(crate) workloads: &'a [WorkloadSpec],
}

impl Checked<'_> {
    /// The first workload some of whose flows run `protocol`.
    pub(crate) fn first_running(&self, protocol: Protocol) -> Option<usize> {
        self.workloads.iter().position(|w| w.flow_protocols(self.transport.protocol).contains(&protocol))
    }
}

/// A protocol's own table of the scenario file (`[d3]`): its keys as the file writes them, the
/// checked spec the engine reads, and what `incast check` shows of it. One module per section,
/// named after it; the module's `Raw` and `Spec` are its two forms.
pub(crate) trait Section {
    /// The table as the file writes it: serde refuses unknown keys and malformed units.
    type Raw: Default;
    /// The table checked, in engine units, every key the file leaves out at its default.
    type Spec: Default;

    /// Whether flows of `protocol` read the section.
    fn used_by(protocol: Protocol) -> bool;

    /// Whether a file that sets the section must run some of its flows (else it is an error:
    /// the keys would be silently ignored).
    const ONLY_WITH_ITS_FLOWS: bool = false;

    /// The file's table, checked; errors name the key (`d3.alpha`).
    fn validate(raw: Self::Raw, context: &SectionContext<'_>) -> Result<Self::Spec>;

    /// What needs the rest of the scenario (TCPpr's classes against the switches').
    fn check(spec: &Self::Spec, scenario: &Checked<'_>) -> Result<()> {
        let _ = (spec, scenario);
        Ok(())
    }

    /// Every key with the value in effect, in file syntax.
    fn describe(spec: &Self::Spec) -> Map<String, Value>;

    /// What `incast check` says above the keys.
    fn heading(spec: &Self::Spec) -> String;
}

/// What a transport's flows may and may not do in a scenario. The defaults are a TCP-family
/// transport's: it shares the network, rides packet spraying, keeps connections, reads
/// `[transport]` whole and adds no header of its own.
pub(crate) trait TransportRules {
    /// Why its flows cannot share a network with other protocols' flows (its ports are its own),
    /// if they cannot: the end of the message.
    const ALONE: Option<&'static str> = None;
    /// Why it cannot run over packet spraying (`load_balancing = "spray"`), if it cannot.
    const NO_SPRAY: Option<&'static str> = None;
    /// Bytes its own header adds to a full data packet.
    const HEADER_BYTES: u32 = 0;
    /// Whether a connection carries one message after another (`connections = "persistent"`).
    const KEEPS_CONNECTIONS: bool = true;
    /// `[transport]` keys its hosts do without: refused when set `true`, with why.
    const REFUSES: (&'static [&'static str], &'static str) = (&[], "");
    /// Whether its hosts read `[transport]` (pFabric's run their own TCP).
    const READS_TRANSPORT: bool = true;
    /// What `incast check` says instead of `[transport]` for a scenario of its flows only, when
    /// its hosts do not read it.
    const INSTEAD_OF_TRANSPORT: &'static str = "";
}

/// Defines the protocols' rules and [`ProtocolSections`] from the registry.
macro_rules! define_sections {
    ($($module:ident: $family:ident [$($section:ident)*] { $($variant:ident($($name:literal)+) $label:literal),+ })+) => {
        impl Protocol {
            /// Bytes the protocol's own header adds to a full data packet (D3's congestion
            /// header, PDQ's scheduling header).
            pub fn extension_header_bytes(self) -> u32 {
                self.rules().header_bytes
            }

            /// Whether a connection of the protocol can carry one message after another
            /// (persistent connections): the TCP sender's families can; D3, RCPdc and PDQ open a
            /// connection per flow, since their senders ask the network for each flow's rate.
            pub fn keeps_connections(self) -> bool {
                self.rules().keeps_connections
            }

            /// The rules of its transport.
            pub(crate) fn rules(self) -> Rules {
                match self {
                    $($(Protocol::$variant)|+ => Rules::of::<$module::Rules>(),)+
                }
            }
        }

        /// Every protocol's own sections, checked: what the engine's transports read
        /// (`[d2tcp]`, `[tcppr]`, `[d3]`, `[pdq]`, `[pfabric]`, one field each).
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct ProtocolSections {
            $($(
                #[doc = concat!("`[", stringify!($section), "]`, of the `", stringify!($module), "` transport.")]
                pub $section: $section::Spec,
            )*)+
        }

        /// The sections of a file as it writes them, `None` where it has none.
        #[derive(Default)]
        pub(crate) struct RawSections {
            $($(pub(crate) $section: Option<$section::Raw>,)*)+
        }

        impl ProtocolSections {
            /// The file's sections, checked.
            pub(crate) fn validate(raw: RawSections, context: &SectionContext<'_>) -> Result<(ProtocolSections, Vec<&'static str>)> {
                let mut given = Vec::new();
                $($(
                    if raw.$section.is_some() {
                        given.push(stringify!($section));
                    }
                )*)+
                let sections = ProtocolSections {
                    $($(
                        $section: <$section::Section as Section>::validate(raw.$section.unwrap_or_default(), context)?,
                    )*)+
                };
                Ok((sections, given))
            }

            /// The checks that need the whole scenario, `given` the sections the file sets and
            /// `in_use` the protocols its flows run: each section's own, and a section set
            /// without its flows, where that is an error.
            pub(crate) fn check(&self, given: &[&str], in_use: &[Protocol], scenario: &Checked<'_>) -> Result<()> {
                $($(
                    <$section::Section as Section>::check(&self.$section, scenario)?;
                    let used = in_use.iter().any(|&p| <$section::Section as Section>::used_by(p));
                    if <$section::Section as Section>::ONLY_WITH_ITS_FLOWS && given.contains(&stringify!($section)) && !used {
                        let protocol = Protocol::ALL.iter().copied().find(|&p| <$section::Section as Section>::used_by(p)).expect("a section has a protocol");
                        return Err(err(
                            stringify!($section),
                            format!(
                                "is set, but no flow runs {} (set [transport] protocol = \"{}\" or a workload's protocol)",
                                protocol.label(),
                                protocol.name()
                            ),
                        ));
                    }
                )*)+
                Ok(())
            }

            /// The sections the protocols `in_use` read, each as (name, heading, keys in effect),
            /// in the registry's order.
            pub(crate) fn describe(&self, in_use: &[Protocol]) -> Vec<(&'static str, String, Map<String, Value>)> {
                let mut out = Vec::new();
                $($(
                    if in_use.iter().any(|&p| <$section::Section as Section>::used_by(p)) {
                        out.push((
                            stringify!($section),
                            <$section::Section as Section>::heading(&self.$section),
                            <$section::Section as Section>::describe(&self.$section),
                        ));
                    }
                )*)+
                out
            }
        }
    };
}

crate::for_each_transport!(define_sections);

/// A transport's [`TransportRules`] as values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    pub(crate) alone: Option<&'static str>,
    pub(crate) no_spray: Option<&'static str>,
    pub(crate) header_bytes: u32,
    pub(crate) keeps_connections: bool,
    pub(crate) refuses: (&'static [&'static str], &'static str),
    pub(crate) reads_transport: bool,
    pub(crate) instead_of_transport: &'static str,
}

impl Rules {
    fn of<R: TransportRules>() -> Rules {
        Rules {
            alone: R::ALONE,
            no_spray: R::NO_SPRAY,
            header_bytes: R::HEADER_BYTES,
            keeps_connections: R::KEEPS_CONNECTIONS,
            refuses: R::REFUSES,
            reads_transport: R::READS_TRANSPORT,
            instead_of_transport: R::INSTEAD_OF_TRANSPORT,
        }
    }
}

/// `labels` joined as prose: "A", "A or B", "A, B or C" with `last` = "or".
pub(crate) fn prose(labels: &[&str], last: &str) -> String {
    match labels {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., tail] => format!("{} {last} {tail}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_joins_labels() {
        assert_eq!(prose(&["D3"], "or"), "D3");
        assert_eq!(prose(&["D3", "RCPdc"], "or"), "D3 or RCPdc");
        assert_eq!(prose(&["D3", "RCPdc", "PDQ"], "and"), "D3, RCPdc and PDQ");
    }
}
