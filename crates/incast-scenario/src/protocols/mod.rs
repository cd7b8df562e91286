//! The transports incast runs, named in one place: the registry [`for_each_transport!`], one line
//! per transport plug-in, with the protocols it offers under their file names and labels.
//!
//! A *transport* is one implementation in the engine (its endpoints, what its packets carry, what
//! its ports do); a *protocol* is a name a scenario file gives to a flow (`protocol = "dctcp"`).
//! Several protocols may share a transport: TCP's serves `tcp`, `dctcp`, `d2tcp` and `tcppr`,
//! which differ in congestion policy and priority class; D3's serves `d3` and `rcpdc`.
//!
//! Every layer that needs the list expands the registry with a macro of its own, so adding a
//! transport edits the list once (docs/adding-a-transport.md):
//!
//! ```text
//!  for_each_transport!(callback)
//!     ├─ incast-scenario: the Protocol enum, its names and labels (here)
//!     └─ incast-sim:      the engine's dispatch over transports (incast-sim/src/transport/registry.rs)
//! ```

/// The registry of transports: expands `$callback!` with one entry per transport, in the order
/// tables and messages list them:
///
/// ```text
/// module: Family { Variant("name" "alias"...) "Label", ... }
/// ```
///
/// `module` names the transport's engine adapter (`incast_sim`'s `transport::module`); `Family`
/// its variant in the engine's dispatch enums; each `Variant` a [`Protocol`] with the names a
/// scenario file accepts for it (the first is canonical) and the label figures and messages use.
#[macro_export]
macro_rules! for_each_transport {
    ($callback:ident) => {
        $callback! {
            tcp: Tcp { Tcp("tcp" "newreno") "TCP", Dctcp("dctcp") "DCTCP", D2tcp("d2tcp") "D2TCP", TcpPr("tcppr") "TCPpr" }
            d3: D3 { D3("d3") "D3", Rcpdc("rcpdc") "RCPdc" }
            pdq: Pdq { Pdq("pdq") "PDQ" }
            pfabric: Pfabric { Pfabric("pfabric") "pFabric" }
        }
    };
}

/// Defines [`Protocol`] from the registry.
macro_rules! define_protocols {
    ($($module:ident: $family:ident { $($variant:ident($($name:literal)+) $label:literal),+ })+) => {
        /// A transport protocol, as a scenario names it (`[transport] protocol`, a workload's
        /// `protocol`). The registry ([`for_each_transport!`]) lists them; each one's rules and
        /// sections are documented in docs/scenario.md.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Protocol {
            $($(
                #[doc = concat!("`", first_name!($($name)+), "`: ", $label, ", on the `", stringify!($module), "` transport.")]
                $variant,
            )+)+
        }

        impl Protocol {
            /// Every protocol, in the registry's order.
            pub const ALL: &'static [Protocol] = &[$($(Protocol::$variant,)+)+];

            /// Every name a scenario file accepts, with the protocol it names; a protocol's
            /// canonical name comes first among its own.
            pub(crate) const NAMES: &'static [(&'static str, Protocol)] = &[$($($(($name, Protocol::$variant),)+)+)+];

            /// The protocol's name in scenario files and result tables (`"dctcp"`).
            pub fn name(self) -> &'static str {
                match self {
                    $($(Protocol::$variant => first_name!($($name)+),)+)+
                }
            }

            /// How figures, tables and messages write the protocol (`"pFabric"`, `"D2TCP"`).
            pub fn label(self) -> &'static str {
                match self {
                    $($(Protocol::$variant => $label,)+)+
                }
            }

            /// The transport that runs it: the engine adapter's module (`"tcp"` for DCTCP).
            pub fn transport(self) -> &'static str {
                match self {
                    $($(Protocol::$variant => stringify!($module),)+)+
                }
            }
        }
    };
}

/// The first of a protocol's names: its canonical one.
macro_rules! first_name {
    ($first:literal $($rest:literal)*) => {
        $first
    };
}

for_each_transport!(define_protocols);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocol_has_one_canonical_name_first_among_its_names() {
        for &p in Protocol::ALL {
            let names: Vec<&str> = Protocol::NAMES.iter().filter(|(_, q)| *q == p).map(|(n, _)| *n).collect();
            assert!(!names.is_empty(), "{p:?}");
            assert_eq!(crate::file::Named::name(p), names[0]);
        }
        let mut all: Vec<&str> = Protocol::NAMES.iter().map(|(n, _)| *n).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), Protocol::NAMES.len(), "no name names two protocols");
    }

    #[test]
    fn labels_and_transports_come_from_the_registry() {
        assert_eq!((Protocol::Pfabric.label(), Protocol::Pfabric.transport()), ("pFabric", "pfabric"));
        assert_eq!((Protocol::D2tcp.label(), Protocol::D2tcp.transport()), ("D2TCP", "tcp"));
        assert_eq!(Protocol::Rcpdc.transport(), "d3");
    }
}
