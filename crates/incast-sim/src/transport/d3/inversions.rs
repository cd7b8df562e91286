//! Priority inversions of D3, counted by the simulator (not by the routers, which keep no per-flow
//! state): D2TCP Section 4.2.2, Table 1 "the percentage of requests that are denied while
//! later-deadline requests have been granted". A request is denied when a port allocates less
//! than the flow asked for; a flow holds a grant at a port from a request that got all it asked
//! for until its next request there or its FIN. Each port's router keeps its own count; the
//! summary adds them up.

use std::collections::BTreeSet;

use incast_proto::d3::Grant;
use incast_proto::time::Instant;

use crate::ids::FlowId;

/// Grants held at one port and the running counts.
#[derive(Debug, Default)]
pub(crate) struct PriorityInversions {
    /// The (deadline, flow) of deadline flows whose last request here was granted.
    granted: BTreeSet<(Instant, FlowId)>,
    /// Deadline flows' requests seen (FINs excluded).
    pub(crate) requests: u64,
    /// Of those, denied while a later-deadline flow held a grant at the same port.
    pub(crate) inversions: u64,
}

impl PriorityInversions {
    /// A deadline flow's request passed the port, and its router answered it with `grant`.
    pub(crate) fn on_grant(&mut self, flow: FlowId, deadline: Instant, grant: Grant) {
        match grant {
            // A router with no slot left in the header took no part.
            Grant::Untouched => {}
            // A FIN, or a request for no rate (nearly done, or RCPdc), holds no deadline grant.
            Grant::Released | Grant::Granted { desired: 0, .. } => self.on_fin(flow, deadline),
            Grant::Granted { desired, allocated } => self.on_request(flow, deadline, desired, allocated),
        }
    }

    /// A deadline flow's request passed the port: it asked for `desired` and got `allocated`.
    fn on_request(&mut self, flow: FlowId, deadline: Instant, desired: u64, allocated: u64) {
        let book = &mut self.granted;
        book.remove(&(deadline, flow));
        self.requests += 1;
        if allocated >= desired {
            book.insert((deadline, flow));
        } else if book.last().is_some_and(|&(later, _)| later > deadline) {
            self.inversions += 1;
        }
    }

    /// A deadline flow's FIN passed the port: it holds nothing there any more.
    fn on_fin(&mut self, flow: FlowId, deadline: Instant) {
        self.granted.remove(&(deadline, flow));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incast_proto::time::Duration;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_ms(ms)
    }

    #[test]
    fn denial_under_a_later_deadline_grant_is_an_inversion() {
        let mut p = PriorityInversions::default();
        p.on_request(FlowId(1), at(40), 10, 10); // far deadline, granted
        p.on_request(FlowId(2), at(20), 10, 4); // near deadline, denied: inversion
        p.on_request(FlowId(3), at(60), 10, 4); // later than every grant: no inversion
        assert_eq!((p.requests, p.inversions), (3, 1));
    }

    #[test]
    fn grants_elsewhere_or_returned_do_not_count() {
        let (mut port1, mut port2) = (PriorityInversions::default(), PriorityInversions::default());
        port1.on_request(FlowId(1), at(40), 10, 10);
        port2.on_request(FlowId(2), at(20), 10, 4); // other port
        port1.on_fin(FlowId(1), at(40));
        port1.on_request(FlowId(3), at(20), 10, 4); // the grant was returned
        port1.on_request(FlowId(4), at(50), 10, 10);
        port1.on_request(FlowId(4), at(50), 10, 2); // its own grant replaced by a denial
        port1.on_request(FlowId(5), at(20), 10, 4);
        assert_eq!((port1.requests + port2.requests, port1.inversions + port2.inversions), (6, 0));
    }

    #[test]
    fn grants_count_as_requests_and_releases() {
        let mut p = PriorityInversions::default();
        let granted = |allocated| Grant::Granted { desired: 10, allocated };
        p.on_grant(FlowId(1), at(40), granted(10));
        p.on_grant(FlowId(2), at(20), Grant::Untouched); // no part: not a request
        p.on_grant(FlowId(2), at(20), granted(4)); // inversion
        p.on_grant(FlowId(1), at(40), Grant::Granted { desired: 0, allocated: 7 }); // asks for nothing: returns the grant
        p.on_grant(FlowId(3), at(20), granted(4));
        p.on_grant(FlowId(4), at(50), granted(10));
        p.on_grant(FlowId(4), at(50), Grant::Released);
        p.on_grant(FlowId(5), at(20), granted(4));
        assert_eq!((p.requests, p.inversions), (5, 1));
    }
}
