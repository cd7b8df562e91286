//! What a run produces: one record per flow, a run summary, optional time series. Plain columnar
//! data so the Python layer can hand it to Arrow without reshaping; `columns` declares the tables'
//! columns as Python sees them.

mod columns;

pub use columns::{Column, Values, FLOW_COLUMNS, OFFER_LOG_COLUMNS, PORT_COLUMNS, THROUGHPUT_COLUMNS, TRACE_COLUMNS};

/// One row of the flow table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowRecord {
    /// Index of the flow in the scenario (workloads in order, flows in start order within each).
    pub flow_id: u32,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Bytes to deliver; `None` for a long-lived flow.
    pub size_bytes: Option<u64>,
    /// When the flow started, seconds.
    pub start_s: f64,
    /// When the receiver held every byte, seconds; `None` if it never did.
    pub finish_s: Option<f64>,
    /// Absolute deadline, seconds; `None` without a deadline.
    pub deadline_s: Option<f64>,
    /// Whether the flow met its deadline, as the engine alone decides it: `true` if it finished
    /// at or before `deadline_s`; `false` if it finished after it, if it was unfinished when the
    /// run ended at or after `deadline_s`, or if it was abandoned (D3 quenching: it will never
    /// finish); `None` (unknown) if it was unfinished, not abandoned, and its deadline lies past
    /// the end of the run (`Summary::sim_time_s`), and `None` without a deadline.
    pub met_deadline: Option<bool>,
    /// Payload bytes the receiver got in order (for throughput of long flows).
    pub delivered_bytes: u64,
    /// Payload bytes sent more than once.
    pub retransmitted_bytes: u64,
    /// Retransmission timeouts suffered.
    pub timeouts: u32,
    /// `finish_s - deadline_s`, negative when early; `None` without both.
    pub lateness_s: Option<f64>,
    /// D3: the sender gave up on the flow (D3 Section 6.1.3); false for other protocols.
    pub quenched: bool,
    /// D3: seconds the flow spent paused at the base rate.
    pub time_at_base_rate_s: f64,
    /// The longest time the receiver went without a new in-order byte, seconds: from the
    /// flow's start to its first byte, between bytes, and from the last byte to the end of the
    /// run if it never finished. `None` for a flow that never started or a message of a
    /// persistent connection.
    pub max_stall_s: Option<f64>,
    /// Workload index the flow came from.
    pub workload: u32,
    /// Round of a flow-burst workload (0 otherwise).
    pub round: u32,
    /// Transport protocol name.
    pub protocol: &'static str,
    /// Priority class.
    pub priority: u8,
    /// Application of a flow of an `oldi` workload (index into its applications); `None` for
    /// flows of other workloads.
    pub app: Option<u32>,
    /// Sent by an `oldi` tree's background sender (D2TCP Section 4.2.3) rather than answering a
    /// query.
    pub background: bool,
    /// The flow alone on the idle network along its own route, sending at line rate after its
    /// transport's handshake, seconds (`crate::ideal`); `None` for a long-lived flow.
    pub ideal_fct_s: Option<f64>,
    /// FCT (`finish_s - start_s`) over `ideal_fct_s`; `None` unless the flow finished.
    pub slowdown: Option<f64>,
    /// The flow arrived in the measurement window (`[run] warmup` to `measure_until`): the
    /// summaries count only these.
    pub measured: bool,
}

/// Counters of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Events processed.
    pub events: u64,
    /// Simulated time at the end, seconds.
    pub sim_time_s: f64,
    /// Wall-clock time of the run, seconds (the only non-deterministic field).
    pub wall_time_s: f64,
    /// Flows in the scenario.
    pub flows: u64,
    /// Flows that arrived in the measurement window (all of them without `[run] warmup` or
    /// `measure_until`); deadline counts and application throughput count only these.
    pub flows_measured: u64,
    /// Flows that completed.
    pub flows_completed: u64,
    /// Measured flows with a deadline the run could judge: those whose `met_deadline` is known.
    pub deadline_flows: u64,
    /// Flows with a deadline past the end of the run, unfinished at its end: `met_deadline` is
    /// unknown, and they count in neither `deadline_flows` nor `app_throughput`.
    pub deadline_unknown: u64,
    /// Fraction of `deadline_flows` that met their deadline (D3's application throughput);
    /// `None` when the run could judge no flow.
    pub app_throughput: Option<f64>,
    /// Packets handed to a host NIC by a transport.
    pub packets_sent: u64,
    /// Packets that reached their destination host.
    pub packets_delivered: u64,
    /// Packets dropped at a full queue.
    pub packets_dropped: u64,
    /// Packets still queued or on a wire when the run stopped.
    pub packets_in_network: u64,
    /// Packets sent over one link, summed over links (a "packet-hop").
    pub packet_hops: u64,
    /// Data packets marked CE on arrival and queued (each packet once: one marked by an
    /// earlier queue is not marked again).
    pub ecn_marked: u64,
    /// ECN-capable packets that arrived above a marking threshold and were dropped for lack of
    /// room (ns-3's RED marks them before its queue drops them).
    pub ecn_marked_dropped: u64,
    /// SYNs and pure ACKs marked CE on arrival and queued (`ect_control_packets`).
    pub ecn_marked_control: u64,
    /// Packets queued above a marking threshold that an earlier queue had marked already (ns-3's
    /// RED marks them again and counts them).
    pub ecn_remarked: u64,
    /// Largest queue seen at any switch port, bytes.
    pub max_queue_bytes: u64,
    /// Retransmission timeouts over all flows.
    pub timeouts: u64,
    /// What the transports' port processors counted, summed over the ports, by name, every
    /// registered counter present (zero in a run without it): D3's `d3_requests` (rate requests
    /// of deadline flows seen at switch ports) and `d3_priority_inversions` (of those, denied
    /// while a later-deadline flow held a grant at the same port: D2TCP Section 4.2.2, Table 1).
    pub port_counters: Vec<(&'static str, u64)>,
    /// The `[transport]` settings in effect, as a JSON object keyed as the scenario file writes
    /// them (the stack's defaults with the file's keys applied).
    pub transport: String,
    /// The run reached its simulated-time horizon (`[run] horizon`) with work left and stopped
    /// there: `sim_time_s` is the horizon, and flows unfinished by then have no `finish_s`.
    /// The same as `status == RunStatus::Horizon`.
    pub stopped_at_horizon: bool,
    /// How the run ended.
    pub status: RunStatus,
    /// Why the run stalled, when `status` is [`RunStatus::Stalled`].
    pub stall: Option<Stall>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RunStatus {
    /// Every finite flow ended (completed, or abandoned by its sender) and none is left to
    /// start; with `[run] stop_after_finite_flows`, before the duration.
    #[default]
    FlowsEnded,
    /// It ran to `[run] duration`.
    Duration,
    /// It reached `[run] horizon` with work left and stopped there.
    Horizon,
    /// The progress watchdog stopped it (`[run] stall_after`), or no flow could ever act again:
    /// unfinished flows would never finish. `Summary::stall` says why.
    Stalled,
}

impl RunStatus {
    /// Its name in the summary (`"stalled"`).
    pub fn name(self) -> &'static str {
        match self {
            RunStatus::FlowsEnded => "flows-ended",
            RunStatus::Duration => "duration",
            RunStatus::Horizon => "horizon",
            RunStatus::Stalled => "stalled",
        }
    }
}

/// Why a run stalled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    /// What the watchdog saw, and what to do about it, in one line.
    pub reason: String,
    /// The scenario keys most likely behind it, most likely first: those of the stalled flows'
    /// transports (`transport::Plugin::STALL_KEYS`).
    pub keys: Vec<&'static str>,
}

/// A sampled queue length series of one port.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueSeries {
    /// The port's name (`PortRecord::port`).
    pub port: String,
    /// The host the sampled port faces, when it is a switch's downlink to a host.
    pub host: Option<u32>,
    /// Sample times, seconds.
    pub time_s: Vec<f64>,
    /// Queue length at each sample, bytes.
    pub queue_bytes: Vec<u64>,
    /// What the port's processor sampled at each sample, one series per column the
    /// transports' processors declare (`port_sample_columns`; D3's allocator: its counters N, D,
    /// A and C), when the port runs a processor that samples; empty otherwise.
    pub processor: Vec<ExtraSeries>,
}

/// Per-flow delivered bytes sampled over time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThroughputSeries {
    /// Sample time, seconds (one entry per flow per sample).
    pub time_s: Vec<f64>,
    /// Flow of each entry.
    pub flow_id: Vec<u32>,
    /// Bytes the receiver got in order by that time.
    pub delivered_bytes: Vec<u64>,
}

/// One row of the ports table: an egress port, named after the nodes at both ends of its link
/// (`Topology::port_name`), and what it did over the run.
#[derive(Clone, Debug, PartialEq)]
pub struct PortRecord {
    /// `{node}->{peer}`, e.g. `tor3->h17`: stable for a topology, whatever the scenario's traffic.
    pub port: String,
    /// The node that transmits on the port: `h7` for host 7, or a switch (`tor3`, `fabric`, `core0`).
    pub node: String,
    /// The node at the far end of the link.
    pub peer: String,
    /// What the transmitting node is: `host` (the port is its NIC), or the switch's role in its
    /// topology (`switch`, `tor`, `root`, `fabric`, `edge`, `agg`, `core`).
    pub role: &'static str,
    /// The transmitting node's level: 0 for a host, 1 for a ToR or edge switch, one more per
    /// tier above.
    pub tier: u8,
    /// The link leads up, to a higher tier (a NIC, a ToR's uplink), rather than down.
    pub up: bool,
    /// The link's rate, bits per second.
    pub link_rate_bps: u64,
    /// Packets the port put on its link.
    pub packets_sent: u64,
    /// Bytes it put on its link (headers included).
    pub bytes_sent: u64,
    /// Packets it dropped for lack of room.
    pub drops: u64,
    /// Data packets it marked CE on arrival and queued.
    pub ecn_marks: u64,
    /// ECN-capable packets that arrived above its marking threshold and found no room.
    pub ecn_marks_dropped: u64,
    /// Packets without payload (SYNs, pure ACKs) it marked CE on arrival and queued.
    pub ecn_marks_control: u64,
    /// Packets already CE-marked that it queued above its threshold.
    pub ecn_remarks: u64,
    /// The most bytes that waited at once.
    pub max_queue_bytes: u64,
    /// The bytes waiting, averaged over the whole run (from time 0 to its end).
    pub mean_queue_bytes: f64,
}

/// Everything a run produced.
#[derive(Clone, Debug, Default)]
pub struct RunResults {
    /// One record per flow, ordered by `flow_id`.
    pub flows: Vec<FlowRecord>,
    /// Counters.
    pub summary: Summary,
    /// Queue samples, one series per sampled port.
    pub queues: Vec<QueueSeries>,
    /// Throughput samples, if requested.
    pub throughput: Option<ThroughputSeries>,
    /// One record per egress port, hosts' NICs included, in the topology's order.
    pub ports: Vec<PortRecord>,
    /// The packet capture, when `[output] capture_ports` asks for one.
    pub capture: Option<CaptureFile>,
    /// The traced flows' congestion state, when `[output] trace_flows` or `trace_workloads`
    /// asks for it.
    pub traces: Option<TraceSeries>,
    /// Every packet offered to the ports `[output] offer_log_ports` names, when it asks.
    pub offer_log: Option<OfferLogSeries>,
}

/// The offer log: one row per packet offered to a logged port, in time order, with what it
/// found there and what the port did (`OfferLogSeries::OUTCOMES`). Columns in parallel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OfferLogSeries {
    /// When, seconds.
    pub time_s: Vec<f64>,
    /// The port, by index into `port_names`.
    pub port: Vec<u32>,
    /// The packet's flow.
    pub flow_id: Vec<u32>,
    /// A data packet's first payload byte (from the flow's start); an ACK's cumulative
    /// acknowledgement.
    pub seq: Vec<u64>,
    /// Its payload, bytes (0 for a SYN or a pure ACK).
    pub payload_bytes: Vec<u32>,
    /// Packets waiting at the port when it arrived (not the one serializing).
    pub queued_packets: Vec<u64>,
    /// Bytes waiting at the port when it arrived.
    pub queued_bytes: Vec<u64>,
    /// Whether it arrived CE-marked by an earlier port.
    pub ce_on_arrival: Vec<bool>,
    /// What the port did, an index into `OUTCOMES`.
    pub outcome: Vec<u8>,
    /// The ports' names (`PortRecord::port`), by index.
    pub port_names: Vec<String>,
    /// Offers left out because `offer_log_max_rows` was reached.
    pub missed: u64,
}

impl OfferLogSeries {
    /// Queued unmarked.
    pub const QUEUED: u8 = 0;
    /// Queued and marked CE here.
    pub const MARKED: u8 = 1;
    /// Dropped: no room.
    pub const DROPPED: u8 = 2;
    /// Queued at a pFabric port by dropping a less urgent waiting packet.
    pub const EVICTING: u8 = 3;
    /// Queued at an NDP port, the arrival or a waiting packet trimmed to its headers.
    pub const TRIMMING: u8 = 4;
    /// Returned to its sender by an NDP port with return-to-sender on: its header found no room.
    pub const RETURNED: u8 = 5;
    /// Queued at an NDP port, a waiting packet trimmed and returned to its sender for lack of
    /// room for its header.
    pub const RETURNING: u8 = 6;
    /// The outcomes' names, by index.
    pub const OUTCOMES: [&'static str; 7] =
        ["queued", "marked", "dropped", "queued-evicting", "queued-trimming", "returned", "queued-returning"];
}

/// Traced flows' sender state, one row each time any of it changed (and one when the flow
/// starts): columns in parallel, rows in time order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceSeries {
    /// The flow.
    pub flow_id: Vec<u32>,
    /// When, seconds.
    pub time_s: Vec<f64>,
    /// The smoothed RTT, seconds, once measured.
    pub srtt_s: Vec<Option<f64>>,
    /// The retransmission timeout, back-off included, seconds.
    pub rto_s: Vec<f64>,
    /// The transports' own columns (`trace_columns`: TCP's window, DCTCP's alpha, the rate of
    /// D3 and PDQ, ...), in order, null in the rows of other transports' flows.
    pub columns: Vec<ExtraSeries>,
}

impl TraceSeries {
    /// The values of the transport column named `name`, if there is one.
    pub fn column(&self, name: &str) -> Option<&ExtraValues> {
        self.columns.iter().find(|c| c.column.name == name).map(|c| &c.values)
    }

    /// The values of the integer transport column named `name`.
    ///
    /// # Panics
    /// If no transport declares an integer column of that name.
    pub fn u64s(&self, name: &str) -> &[Option<u64>] {
        self.column(name).and_then(ExtraValues::as_u64).unwrap_or_else(|| panic!("no integer trace column {name}"))
    }

    /// The values of the floating-point transport column named `name`.
    ///
    /// # Panics
    /// If no transport declares a floating-point column of that name.
    pub fn f64s(&self, name: &str) -> &[Option<f64>] {
        self.column(name).and_then(ExtraValues::as_f64).unwrap_or_else(|| panic!("no floating-point trace column {name}"))
    }
}

impl QueueSeries {
    /// What the port's processor sampled in the column named `name` (D3's `d3_flows`, ...),
    /// one value per sample; empty if the port has no processor that samples it.
    pub fn sampled(&self, name: &str) -> &[Option<u64>] {
        self.processor.iter().find(|c| c.column.name == name).and_then(|c| c.values.as_u64()).unwrap_or(&[])
    }
}

/// A column a transport adds to a table (traces, queue samples), declared once in its plug-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtraColumn {
    /// Its name in the table.
    pub name: &'static str,
    /// What it holds, and when it is null.
    pub doc: &'static str,
    /// Its values' type.
    pub kind: ExtraKind,
}

/// The type of an [`ExtraColumn`]'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtraKind {
    /// Unsigned integers (bytes, rates in bytes per second).
    U64,
    /// Floating-point numbers (estimates, fractions).
    F64,
}

impl ExtraKind {
    /// The type's name as `Column::type_name` writes it.
    pub fn type_name(self) -> &'static str {
        match self {
            ExtraKind::U64 => "u64",
            ExtraKind::F64 => "f64",
        }
    }
}

/// One value of an [`ExtraColumn`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExtraValue {
    /// Of a `U64` column.
    U64(u64),
    /// Of an `F64` column.
    F64(f64),
}

/// A column a transport adds, with its values.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraSeries {
    /// The column.
    pub column: ExtraColumn,
    /// Its values.
    pub values: ExtraValues,
}

impl ExtraSeries {
    /// `column`, empty.
    pub fn of(column: &ExtraColumn) -> ExtraSeries {
        ExtraSeries { column: *column, values: ExtraValues::of(column.kind) }
    }
}

/// The values of an [`ExtraColumn`], one per row, null where the row's transport has none.
#[derive(Clone, Debug, PartialEq)]
pub enum ExtraValues {
    /// Of a `U64` column.
    U64(Vec<Option<u64>>),
    /// Of an `F64` column.
    F64(Vec<Option<f64>>),
}

impl ExtraValues {
    /// An empty column of `kind`.
    pub fn of(kind: ExtraKind) -> ExtraValues {
        match kind {
            ExtraKind::U64 => ExtraValues::U64(Vec::new()),
            ExtraKind::F64 => ExtraValues::F64(Vec::new()),
        }
    }

    /// Rows.
    pub fn len(&self) -> usize {
        match self {
            ExtraValues::U64(v) => v.len(),
            ExtraValues::F64(v) => v.len(),
        }
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The integer values, if the column holds integers.
    pub fn as_u64(&self) -> Option<&[Option<u64>]> {
        match self {
            ExtraValues::U64(v) => Some(v),
            ExtraValues::F64(_) => None,
        }
    }

    /// The floating-point values, if the column holds them.
    pub fn as_f64(&self) -> Option<&[Option<f64>]> {
        match self {
            ExtraValues::F64(v) => Some(v),
            ExtraValues::U64(_) => None,
        }
    }
}

/// A packet capture: a pcap file (nanosecond timestamps, Ethernet) of what the captured ports'
/// links delivered, headers synthesized from the simulated packets (docs/scenario.md, `[output]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureFile {
    /// The file's bytes.
    pub pcap: Vec<u8>,
    /// Packets written into it.
    pub packets: u64,
    /// Packets of captured ports left out because `capture_max_packets` was reached.
    pub missed: u64,
}
