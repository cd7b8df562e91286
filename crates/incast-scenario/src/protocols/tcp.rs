//! TCP's transport in a scenario: `tcp` (NewReno), `dctcp`, `d2tcp` and `tcppr`. Its hosts read
//! `[transport]` whole (the stack and every TCP key; DCTCP's `dctcp_g` and `dctcp_initial_alpha`
//! too), D2TCP `[d2tcp]` and TCPpr `[tcppr]` beside it; its flows share any network, ride packet
//! spraying and keep persistent connections: every rule at its default.

use super::TransportRules;

/// TCP's rules: the defaults.
pub(crate) struct Rules;

impl TransportRules for Rules {}
