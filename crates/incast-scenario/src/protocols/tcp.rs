//! TCP's transport in a scenario: `tcp` (NewReno), `dctcp`, `d2tcp` and `tcppr`. Its hosts read
//! `[transport]` whole (the stack and every TCP key; DCTCP's `dctcp_g` and `dctcp_initial_alpha`
//! too), D2TCP `[d2tcp]` and TCPpr `[tcppr]` beside it; its flows share any network, ride packet
//! spraying and keep persistent connections: every rule at its default, but that DCTCP's and
//! D2TCP's senders react to ECN marks.

use super::TransportRules;
use crate::registry::Protocol;

/// TCP's rules: the defaults, and ECN reactions for DCTCP and D2TCP.
pub(crate) struct Rules;

impl TransportRules for Rules {
    const ECN_REACTIVE: &'static [Protocol] = &[Protocol::Dctcp, Protocol::D2tcp];
}
