//! The columns of the result tables as Python sees them: name, value type, whether it can be
//! null, a one-line doc and how to read it from the run's records. The one definition of the
//! flows, ports, traces and throughput tables: the Python bindings walk these lists to hand the
//! columns over, and `incast.api` builds its Arrow schemas from them, so a column added to a
//! record here reaches Python with nothing else to edit. (The queue table's rows are flattened
//! from per-port series with the port's name and host repeated on each; it keeps its own layout.)
//!
//! Each column's name is its field's name: the macros below take the field and spell it.

use super::{FlowRecord, OfferLogSeries, PortRecord, ThroughputSeries, TraceSeries};

/// A column of a table `T`: a slice of records (`[FlowRecord]`) or a struct of parallel
/// vectors (`TraceSeries`).
pub struct Column<T: ?Sized> {
    /// The column's name, its field's name in the record.
    pub name: &'static str,
    /// What it holds, and when it is null.
    pub doc: &'static str,
    /// Its value at a row; the variant is its type.
    pub values: Values<T>,
}

/// A column's value at row `i` of a table `T`; the variant names the type and whether it can
/// be null (`Opt*`). Strings cross to Python dictionary-encoded (few distinct values per table).
#[allow(missing_docs)] // the variant names are the documentation
pub enum Values<T: ?Sized> {
    U8(fn(&T, usize) -> u8),
    U32(fn(&T, usize) -> u32),
    U64(fn(&T, usize) -> u64),
    F64(fn(&T, usize) -> f64),
    Bool(fn(&T, usize) -> bool),
    Str(fn(&T, usize) -> &str),
    OptU32(fn(&T, usize) -> Option<u32>),
    OptU64(fn(&T, usize) -> Option<u64>),
    OptF64(fn(&T, usize) -> Option<f64>),
    OptBool(fn(&T, usize) -> Option<bool>),
}

impl<T: ?Sized> Column<T> {
    /// The value type: `u8`, `u32`, `u64`, `f64`, `bool` or `str` (Arrow's uint8, uint32,
    /// uint64, float64, bool and string).
    pub fn type_name(&self) -> &'static str {
        match self.values {
            Values::U8(_) => "u8",
            Values::U32(_) | Values::OptU32(_) => "u32",
            Values::U64(_) | Values::OptU64(_) => "u64",
            Values::F64(_) | Values::OptF64(_) => "f64",
            Values::Bool(_) | Values::OptBool(_) => "bool",
            Values::Str(_) => "str",
        }
    }

    /// Whether some rows may be null.
    pub fn nullable(&self) -> bool {
        matches!(self.values, Values::OptU32(_) | Values::OptU64(_) | Values::OptF64(_) | Values::OptBool(_))
    }
}

/// A column of a slice of records: `record!(U32, flow_id, "doc")` reads `rows[i].flow_id`.
macro_rules! record {
    // A `String` or `&'static str` field, read as `&str`.
    (Str, $field:ident, $doc:expr) => {
        Column { name: stringify!($field), doc: $doc, values: Values::Str(|rows, i| &*rows[i].$field) }
    };
    ($kind:ident, $field:ident, $doc:expr) => {
        Column { name: stringify!($field), doc: $doc, values: Values::$kind(|rows, i| rows[i].$field) }
    };
}

/// A column of a struct of vectors: `series!(U32, flow_id, "doc")` reads `t.flow_id[i]`.
macro_rules! series {
    ($kind:ident, $field:ident, $doc:expr) => {
        Column { name: stringify!($field), doc: $doc, values: Values::$kind(|t, i| t.$field[i]) }
    };
}

/// The flow table (`RunResults::flows`), in order.
pub const FLOW_COLUMNS: &[Column<[FlowRecord]>] = &[
    record!(U32, flow_id, "index in the scenario (workloads in order, flows in start order within each)"),
    record!(U32, src, "sending host"),
    record!(U32, dst, "receiving host"),
    record!(OptU64, size_bytes, "bytes to deliver; null for a long-lived flow"),
    record!(F64, start_s, "when the flow started (or was to start), seconds"),
    record!(OptF64, finish_s, "when the receiver held every byte, seconds; null if it never did before the run ended"),
    record!(OptF64, deadline_s, "absolute deadline, seconds; null without a deadline"),
    record!(OptBool, met_deadline, "finished by its deadline; false if late, unfinished past it, or abandoned; \
                                    null without a deadline or while unknown (unfinished, deadline past the end of the run)"),
    record!(U64, delivered_bytes, "payload bytes the receiver got in order"),
    record!(U64, retransmitted_bytes, "payload bytes sent more than once"),
    record!(U32, timeouts, "retransmission timeouts"),
    record!(OptF64, lateness_s, "finish_s - deadline_s, negative when early; null without both"),
    record!(Bool, quenched, "the sender gave up on the flow (D3's quenching, D3 Section 6.1.3; PDQ's Early Termination)"),
    record!(F64, time_at_base_rate_s, "D3 and RCPdc: seconds paused at the base rate (0 otherwise)"),
    record!(OptF64, max_stall_s, "longest time without a new in-order byte, seconds; null for a flow that never \
                                  started or a message of a persistent connection"),
    record!(U32, workload, "index of the workload the flow came from"),
    record!(U32, round, "burst round of a flow-burst workload, else 0"),
    record!(Str, protocol, "transport protocol"),
    record!(U8, priority, "strict-priority class"),
    record!(OptU32, app, "application of an oldi workload's flow; null for other workloads"),
    record!(Bool, background, "sent by an oldi tree's background sender (D2TCP Section 4.2.3)"),
    record!(OptF64, ideal_fct_s, "completion time alone on the idle network along the flow's own route, at line rate \
                                  after its handshake, seconds; null for a long-lived flow"),
    record!(OptF64, slowdown, "(finish_s - start_s) / ideal_fct_s; null unless the flow finished"),
    record!(Bool, measured, "arrived in the measurement window ([run] warmup to measure_until); summaries count only these"),
];

/// The ports table (`RunResults::ports`), in order.
pub const PORT_COLUMNS: &[Column<[PortRecord]>] = &[
    record!(Str, port, "{node}->{peer}: stable for a topology, whatever the traffic"),
    record!(Str, node, "the node that transmits"),
    record!(Str, peer, "the node at the far end of the link"),
    record!(Str, role, "host (the port is its NIC) or the switch's role"),
    record!(U8, tier, "the transmitting node's level: 0 host, 1 ToR or edge, one more per tier above"),
    record!(Bool, up, "the link leads to a higher tier"),
    record!(U64, link_rate_bps, "the link's rate, bits per second"),
    record!(U64, packets_sent, "packets the port put on its link"),
    record!(U64, bytes_sent, "bytes it put on its link, headers included"),
    record!(U64, drops, "packets it dropped for lack of room"),
    record!(U64, ecn_marks, "data packets it marked CE on arrival and queued"),
    record!(U64, ecn_marks_dropped, "ECN-capable packets that arrived above its threshold and found no room"),
    record!(U64, ecn_marks_control, "packets without payload (SYNs, pure ACKs) it marked CE and queued"),
    record!(U64, ecn_remarks, "packets already CE-marked that it queued above its threshold"),
    record!(U64, max_queue_bytes, "the most bytes that waited at once"),
    record!(F64, mean_queue_bytes, "the bytes waiting, averaged over the whole run"),
];

/// The traces table's common columns (`RunResults::traces`), in order; the transports' own
/// columns follow them (`results::trace_columns`).
pub const TRACE_COLUMNS: &[Column<TraceSeries>] = &[
    series!(U32, flow_id, "the traced flow"),
    series!(F64, time_s, "when its sender's state changed, seconds"),
    series!(OptF64, srtt_s, "the smoothed RTT, seconds; null until measured"),
    series!(F64, rto_s, "the retransmission timeout, back-off included, seconds"),
];

/// The offer log (`RunResults::offer_log`), in order.
pub const OFFER_LOG_COLUMNS: &[Column<OfferLogSeries>] = &[
    series!(F64, time_s, "when the packet reached the port, seconds"),
    Column { name: "port", doc: "the port, named as in the ports table", values: Values::Str(|t, i| &t.port_names[t.port[i] as usize]) },
    series!(U32, flow_id, "the packet's flow"),
    series!(U64, seq, "a data packet's first payload byte from the flow's start; an ACK's cumulative acknowledgement"),
    series!(U32, payload_bytes, "its payload, bytes (0 for a SYN or a pure ACK)"),
    series!(U64, queued_packets, "packets waiting at the port when it arrived, the one serializing not counted"),
    series!(U64, queued_bytes, "bytes waiting at the port when it arrived"),
    series!(Bool, ce_on_arrival, "whether an earlier port had marked it CE"),
    Column {
        name: "outcome",
        doc: "queued, marked (queued and marked CE here), dropped, queued-evicting (pFabric) or queued-trimming (NDP)",
        values: Values::Str(|t, i| OfferLogSeries::OUTCOMES[t.outcome[i] as usize]),
    },
];

/// The throughput samples (`RunResults::throughput`), in order.
pub const THROUGHPUT_COLUMNS: &[Column<ThroughputSeries>] = &[
    series!(F64, time_s, "sample time, seconds"),
    series!(U32, flow_id, "the flow"),
    series!(U64, delivered_bytes, "bytes the receiver got in order by then"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The field names and values of a struct, read from its `Debug` form (`Name { a: 1, b:
    /// [2] }`): the derive lists every field, so a field added to a record without a column
    /// shows here. Values must not contain ", " (true of the rows built below).
    fn fields(debug: &str) -> Vec<(String, String)> {
        let inner = debug.split_once(" { ").and_then(|(_, rest)| rest.strip_suffix(" }")).expect("a struct");
        inner
            .split(", ")
            .map(|f| {
                let (name, value) = f.split_once(": ").expect("name: value");
                (name.to_owned(), value.trim_start_matches('[').trim_end_matches(']').to_owned())
            })
            .collect()
    }

    /// Row `i` of each column, as `Debug` writes it.
    fn row<T: ?Sized>(columns: &[Column<T>], table: &T, i: usize) -> Vec<(String, String)> {
        let cell = |c: &Column<T>| match c.values {
            Values::U8(f) => format!("{:?}", f(table, i)),
            Values::U32(f) => format!("{:?}", f(table, i)),
            Values::U64(f) => format!("{:?}", f(table, i)),
            Values::F64(f) => format!("{:?}", f(table, i)),
            Values::Bool(f) => format!("{:?}", f(table, i)),
            Values::Str(f) => format!("{:?}", f(table, i)),
            Values::OptU32(f) => format!("{:?}", f(table, i)),
            Values::OptU64(f) => format!("{:?}", f(table, i)),
            Values::OptF64(f) => format!("{:?}", f(table, i)),
            Values::OptBool(f) => format!("{:?}", f(table, i)),
        };
        columns.iter().map(|c| (c.name.to_owned(), cell(c))).collect()
    }

    fn flow() -> FlowRecord {
        FlowRecord {
            flow_id: 1,
            src: 2,
            dst: 3,
            size_bytes: Some(4),
            start_s: 5.5,
            finish_s: Some(6.5),
            deadline_s: Some(7.5),
            met_deadline: Some(true),
            delivered_bytes: 8,
            retransmitted_bytes: 9,
            timeouts: 10,
            lateness_s: Some(11.5),
            quenched: true,
            time_at_base_rate_s: 12.5,
            max_stall_s: Some(13.5),
            workload: 14,
            round: 15,
            protocol: "d2tcp",
            priority: 16,
            app: Some(17),
            background: true,
            ideal_fct_s: Some(18.5),
            slowdown: Some(19.5),
            measured: true,
        }
    }

    #[test]
    fn flow_columns_are_the_record_fields_in_order() {
        let f = flow();
        assert_eq!(row(FLOW_COLUMNS, &[f][..], 0), fields(&format!("{f:?}")));
    }

    #[test]
    fn port_columns_are_the_record_fields_in_order() {
        let p = PortRecord {
            port: "tor1->h2".into(),
            node: "tor1".into(),
            peer: "h2".into(),
            role: "tor",
            tier: 1,
            up: false,
            link_rate_bps: 3,
            packets_sent: 4,
            bytes_sent: 5,
            drops: 6,
            ecn_marks: 7,
            ecn_marks_dropped: 10,
            ecn_marks_control: 11,
            ecn_remarks: 12,
            max_queue_bytes: 8,
            mean_queue_bytes: 9.5,
        };
        assert_eq!(row(PORT_COLUMNS, &[p.clone()][..], 0), fields(&format!("{p:?}")));
    }

    #[test]
    fn trace_columns_are_the_series_fields_in_order_before_the_transports_own() {
        let t = TraceSeries { flow_id: vec![1], time_s: vec![2.5], srtt_s: vec![Some(4.5)], rto_s: vec![5.5], columns: vec![] };
        let mut expected = fields(&format!("{t:?}"));
        assert_eq!(expected.pop(), Some(("columns".to_owned(), String::new())), "the transports' columns come last");
        assert_eq!(row(TRACE_COLUMNS, &t, 0), expected);
    }

    #[test]
    fn throughput_columns_are_the_series_fields_in_order() {
        let t = ThroughputSeries { time_s: vec![1.5], flow_id: vec![2], delivered_bytes: vec![3] };
        assert_eq!(row(THROUGHPUT_COLUMNS, &t, 0), fields(&format!("{t:?}")));
    }

    #[test]
    fn type_and_nullability_follow_the_variant() {
        let by_name = |name: &str| FLOW_COLUMNS.iter().find(|c| c.name == name).expect("a flow column");
        let kinds: Vec<_> = ["flow_id", "size_bytes", "met_deadline", "protocol", "priority", "start_s"]
            .into_iter()
            .map(|n| (by_name(n).type_name(), by_name(n).nullable()))
            .collect();
        assert_eq!(kinds, [("u32", false), ("u64", true), ("bool", true), ("str", false), ("u8", false), ("f64", false)]);
    }
}
