//! PDQ's scheduler at an egress port (PDQ Section 3.3): hands the scheduling header of every
//! data packet or probe leaving through the port to the port's flow list
//! (`incast_proto::pdq::PdqSwitch`, Algorithm 1), and the header of every ACK of a flow whose data
//! leaves through it, as the ACK passes the port's node on its way back (Algorithm 3). Host NICs
//! have one too: a host with several flows schedules them on its link as a switch would.

use incast_proto::pdq::{PdqSwitch, SchedulingHeader, SwitchConfig};
use incast_proto::rate::from_bits_per_sec;

use crate::ids::PortId;
use crate::scenario::PdqSpec;
use crate::transport::{Passage, PortProcessor, PortView};

/// The scheduler of one port.
pub(crate) struct PdqPort {
    switch: PdqSwitch,
}

impl PdqPort {
    /// The scheduler of `port`, of `view.rate`, configured by `spec`; it pauses flows in the
    /// port's name.
    pub(crate) fn new(spec: &PdqSpec, port: PortId, view: &PortView) -> PdqPort {
        let config = SwitchConfig {
            id: port.0,
            link_rate: from_bits_per_sec(view.rate),
            early_start_rtts: spec.early_start_rtts,
            // Validated in [0, 100] RTTs: at most 100,000 thousandths.
            probe_spacing: (spec.probe_spacing * 1000.0).round() as u32,
            dampening: spec.dampening,
            max_flows: spec.flow_list as usize,
        };
        PdqPort { switch: PdqSwitch::new(config) }
    }
}

impl PortProcessor for PdqPort {
    type Header = SchedulingHeader;

    /// PDQ's answers are soft state the next packet refreshes, so a drop needs no undoing.
    #[inline]
    fn on_out(&mut self, passage: &Passage<'_>, header: &mut SchedulingHeader) -> bool {
        self.switch.on_data(passage.now, passage.flow.0, header, passage.port.queue_bytes);
        false
    }

    #[inline]
    fn on_back(&mut self, passage: &Passage<'_>, header: &mut SchedulingHeader) {
        self.switch.on_ack(passage.flow.0, header);
    }
}
