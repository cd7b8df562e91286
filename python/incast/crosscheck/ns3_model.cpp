// The ns-3 side of `incast crosscheck`: builds the same network and flows as the incast
// scenario and records what incast records (per-flow completion, retransmitted bytes,
// timeouts; drops and ECN marks per switch). Compiled at run time through cppyy (the ns-3
// Python bindings), so nothing here is built with incast.
//
// Every switch port is a traffic-control queue disc of `queue_packets - 1` packets in front of
// a device queue of one packet: ns-3 keeps a packet waiting in the device queue whenever the
// disc is backlogged, so the waiting room is `queue_packets`, as an incast port counts it. RED
// with MinTh = MaxTh = K and QW = 1 marks an arrival that finds K or more packets in the disc,
// i.e. more than K waiting in all, which is incast's "queue exceeds K on arrival".

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace incast_crosscheck
{
using namespace ns3;

struct Flow
{
    uint32_t src;
    uint32_t dst;
    uint64_t size;
    int64_t start_ns;
};

struct Setup
{
    std::string topology = "star"; // or "two-tier"
    uint32_t hosts = 2;
    uint32_t racks = 1;
    uint32_t hosts_per_rack = 2;
    uint64_t link_bps = 1000000000;
    uint64_t fabric_bps = 10000000000;
    int64_t link_delay_ns = 20000;
    uint32_t queue_packets = 85;
    int32_t ecn_k = -1; // packets; -1: drop-tail FIFO without marking
    std::string tcp = "ns3::TcpNewReno";
    uint32_t mss = 1448;
    uint32_t initial_cwnd = 10;
    uint32_t delack_count = 1;
    int64_t min_rto_ns = 10000000;
    bool sack = true;
    int64_t stop_ns = 10000000000;
    int64_t trace_flow = -1; // log this flow's sender on standard output; -2: every flow's
};

struct Results
{
    std::vector<double> finish_s;
    std::vector<uint64_t> delivered;
    std::vector<uint64_t> retransmitted;
    std::vector<uint32_t> timeouts;
    uint64_t drops_data = 0;
    uint64_t drops_other = 0;
    // Every mark RED counted, on packets with and without payload.
    uint64_t marks_data = 0;
    uint64_t marks_other = 0;
    // The same marks per switch port (named as incast names it, `tor0->h3`), by what became of
    // the packet, as incast's ports count them: RED marks a packet before it tries the queue,
    // so a packet that then finds the queue full is counted as marked and as dropped (incast:
    // `ecn_marks_dropped`); its Mark succeeds on a packet an earlier queue marked and counts it
    // again (`ecn_remarks`). The rest are first marks on queued packets, with payload
    // (`ecn_marks`) or without (`ecn_marks_control`).
    std::vector<std::string> port_names;
    std::vector<uint64_t> port_marks_first_data;
    std::vector<uint64_t> port_marks_first_control;
    std::vector<uint64_t> port_remarks;
    std::vector<uint64_t> port_marked_then_dropped;
    std::vector<uint64_t> port_drops;
    uint64_t device_drops = 0;
    // Entries into CA_CWR by state left (TcpSocketBase::EnterCwr runs in every state but
    // CA_CWR): from CA_LOSS (an ECN-Echo after a timeout) and from CA_RECOVERY.
    uint64_t cwr_from_loss = 0;
    uint64_t cwr_from_recovery = 0;
};

static std::vector<Flow> g_flows;
static int64_t g_trace_flow = -1;

// A log of one flow's sender on standard output (`Setup::trace_flow`), to follow a flow that
// the two simulators treat differently: segments sent and ACKs received (in segments from the
// first data byte, with SACK blocks), cwnd and congestion state changes. With every flow's
// (`trace_flow` -2, for replaying ns-3's ACKs into incast's sender), each line names its flow
// ("ns3f <flow> ...") and cwnd is left out.
static uint32_t g_mss = 1448;

static std::ostream& TraceLine(uint32_t f)
{
    if (g_trace_flow == -2)
    {
        std::cout << "ns3f " << f << " ";
    }
    else
    {
        std::cout << "ns3 ";
    }
    return std::cout << Simulator::Now().GetMicroSeconds() << " us ";
}

static void TraceTx(uint32_t f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    TraceLine(f) << "tx " << (h.GetSequenceNumber().GetValue() - 1) / double(g_mss) << " len " << p->GetSize() << "\n";
}

static void TraceRx(uint32_t f, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    TraceLine(f) << "ack " << (h.GetAckNumber().GetValue() - 1) / double(g_mss);
    for (const auto& o : h.GetOptionList())
    {
        if (o->GetKind() == TcpOption::SACK)
        {
            for (const auto& b : DynamicCast<const TcpOptionSack>(o)->GetSackList())
            {
                std::cout << " [" << (b.first.GetValue() - 1) / double(g_mss) << ", " << (b.second.GetValue() - 1) / double(g_mss) << ")";
            }
        }
    }
    std::cout << ((h.GetFlags() & TcpHeader::ECE) ? " ece" : "") << "\n";
}

static void TraceCwnd(uint32_t f, uint32_t, uint32_t cwnd)
{
    TraceLine(f) << "cwnd " << cwnd / double(g_mss) << "\n";
}

static void TraceState(uint32_t f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
{
    TraceLine(f) << "state " << TcpSocketState::TcpCongStateName[state] << "\n";
}
static Results g_res;
static std::vector<uint64_t> g_high;

static void OnRx(uint32_t f, Ptr<const Packet> p, const Address&)
{
    g_res.delivered[f] += p->GetSize();
    if (g_res.finish_s[f] < 0 && g_res.delivered[f] >= g_flows[f].size)
    {
        g_res.finish_s[f] = Simulator::Now().GetSeconds();
    }
}

static void OnTx(uint32_t f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    uint64_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    // Sequence numbers start at 1 after the SYN; wrap-around cannot occur below 4 GB.
    uint64_t seq = h.GetSequenceNumber().GetValue();
    uint64_t end = seq + len;
    uint64_t high = g_high[f];
    if (seq < high)
    {
        g_res.retransmitted[f] += std::min(end, high) - seq;
    }
    g_high[f] = std::max(high, end);
}

static void OnCongState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_CWR && from == TcpSocketState::CA_LOSS)
    {
        g_res.cwr_from_loss++;
    }
    if (to == TcpSocketState::CA_CWR && from == TcpSocketState::CA_RECOVERY)
    {
        g_res.cwr_from_recovery++;
    }
}

static void OnRto(uint32_t f, Time oldv, Time newv)
{
    // ReTxTimeout doubles m_rto (up to 60 s); a new ACK recomputes it from the estimate.
    if (newv == oldv + oldv || (newv == Seconds(60) && oldv > Seconds(30)))
    {
        g_res.timeouts[f]++;
    }
}

static bool HasPayload(Ptr<const QueueDiscItem> item)
{
    Ptr<Packet> p = item->GetPacket()->Copy();
    TcpHeader h;
    if (p->PeekHeader(h) == 0)
    {
        return false;
    }
    return p->GetSize() > h.GetSerializedSize();
}

static uint64_t g_last_marked_uid = UINT64_MAX;
// The category `OnMark` counted the last marked packet in, moved to `marked_then_dropped` if the
// queue then drops it.
static uint64_t* g_last_mark_category = nullptr;
// Packets that reached a switch already CE-marked, by uid (MacRx on the switch's devices, just
// before they are offered to its egress queue disc).
static std::set<uint64_t> g_arrived_ce;

static void OnSwitchRx(Ptr<const Packet> p)
{
    Ptr<Packet> copy = p->Copy();
    PppHeader ppp;
    copy->RemoveHeader(ppp);
    Ipv4Header ip;
    if (ppp.GetProtocol() != 0x0021 || copy->PeekHeader(ip) == 0)
    {
        return;
    }
    if (ip.GetEcn() == Ipv4Header::ECN_CE)
    {
        g_arrived_ce.insert(p->GetUid());
    }
    else
    {
        g_arrived_ce.erase(p->GetUid());
    }
}

static void OnDrop(uint32_t port, Ptr<const QueueDiscItem> item)
{
    bool data = HasPayload(item);
    (data ? g_res.drops_data : g_res.drops_other)++;
    g_res.port_drops[port]++;
    if (item->GetPacket()->GetUid() == g_last_marked_uid && g_last_mark_category != nullptr)
    {
        (*g_last_mark_category)--;
        g_res.port_marked_then_dropped[port]++;
        g_last_mark_category = nullptr;
    }
}

static void OnMark(uint32_t port, Ptr<const QueueDiscItem> item, const char*)
{
    bool data = HasPayload(item);
    (data ? g_res.marks_data : g_res.marks_other)++;
    uint64_t uid = item->GetPacket()->GetUid();
    g_last_mark_category = g_arrived_ce.count(uid) > 0 ? &g_res.port_remarks[port]
                           : data                       ? &g_res.port_marks_first_data[port]
                                                        : &g_res.port_marks_first_control[port];
    (*g_last_mark_category)++;
    g_last_marked_uid = uid;
}

static void OnDeviceDrop(Ptr<const Packet>)
{
    g_res.device_drops++;
}

static void ConnectSocket(uint32_t f, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, f));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, f));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    if ((int64_t)f == g_trace_flow || g_trace_flow == -2)
    {
        s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TraceTx, f));
        s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&TraceRx, f));
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&TraceState, f));
        if (g_trace_flow != -2)
        {
            s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&TraceCwnd, f));
        }
    }
}

static void InstallSwitchQueue(const Setup& c, Ptr<NetDevice> dev, uint64_t rate_bps, const std::string& name)
{
    uint32_t port = g_res.port_names.size();
    g_res.port_names.push_back(name);
    for (auto* v : {&g_res.port_marks_first_data, &g_res.port_marks_first_control, &g_res.port_remarks,
                    &g_res.port_marked_then_dropped, &g_res.port_drops})
    {
        v->push_back(0);
    }
    TrafficControlHelper tch;
    std::string size = std::to_string(c.queue_packets - 1) + "p";
    if (c.ecn_k >= 0)
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(size)),
                             "MinTh", DoubleValue(c.ecn_k),
                             "MaxTh", DoubleValue(c.ecn_k),
                             "QW", DoubleValue(1.0),
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "Gentle", BooleanValue(false),
                             "MeanPktSize", UintegerValue(1500),
                             "LinkBandwidth", DataRateValue(DataRate(rate_bps)),
                             "LinkDelay", TimeValue(NanoSeconds(c.link_delay_ns)));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(size)));
    }
    QueueDiscContainer qd = tch.Install(dev);
    qd.Get(0)->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnDrop, port));
    qd.Get(0)->TraceConnectWithoutContext("Mark", MakeBoundCallback(&OnMark, port));
}

// A switch as incast names it: the star's `switch`, a two-tier network's `tor{r}`.
static std::string SwitchName(const Setup& c, uint32_t tor)
{
    return c.topology == "star" ? "switch" : "tor" + std::to_string(tor);
}

static void InstallHostQueue(Ptr<NetDevice> dev)
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("1000p")));
    tch.Install(dev);
}

Results Run(const Setup& c, const std::vector<Flow>& flows)
{
    g_trace_flow = c.trace_flow;
    // Sequence numbers in segments: enough digits for any byte of a flow below 10 GB.
    std::cout << std::setprecision(12);
    g_mss = c.mss;
    g_flows = flows;
    g_res = Results();
    g_last_marked_uid = UINT64_MAX;
    g_arrived_ce.clear();
    g_last_mark_category = nullptr;
    size_t n = flows.size();
    g_res.finish_s.assign(n, -1.0);
    g_res.delivered.assign(n, 0);
    g_res.retransmitted.assign(n, 0);
    g_res.timeouts.assign(n, 0);
    g_high.assign(n, 0);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(c.tcp)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(c.mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(c.initial_cwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(c.delack_count));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(NanoSeconds(c.min_rto_ns)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(c.sack));
    Config::SetDefault("ns3::PointToPointNetDevice::TxQueue", StringValue("ns3::DropTailQueue<Packet>"));
    Config::SetDefault("ns3::DropTailQueue<Packet>::MaxSize", QueueSizeValue(QueueSize("1p")));

    NodeContainer hosts;
    uint32_t nhosts = c.topology == "star" ? c.hosts : c.racks * c.hosts_per_rack;
    hosts.Create(nhosts);
    uint32_t nswitches = c.topology == "star" ? 1 : c.racks + 1;
    NodeContainer switches;
    switches.Create(nswitches);
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(switches);

    PointToPointHelper edge;
    edge.SetDeviceAttribute("DataRate", DataRateValue(DataRate(c.link_bps)));
    edge.SetChannelAttribute("Delay", TimeValue(NanoSeconds(c.link_delay_ns)));
    PointToPointHelper fabric;
    fabric.SetDeviceAttribute("DataRate", DataRateValue(DataRate(c.fabric_bps)));
    fabric.SetChannelAttribute("Delay", TimeValue(NanoSeconds(c.link_delay_ns)));

    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> host_addr(nhosts);
    uint32_t subnet = 0;
    auto next_subnet = [&]() {
        uint32_t s = subnet++;
        std::string base = "10." + std::to_string(s / 256) + "." + std::to_string(s % 256) + ".0";
        addr.SetBase(Ipv4Address(base.c_str()), "255.255.255.0");
    };
    for (uint32_t h = 0; h < nhosts; h++)
    {
        uint32_t tor = c.topology == "star" ? 0 : h / c.hosts_per_rack;
        NetDeviceContainer d = edge.Install(hosts.Get(h), switches.Get(tor));
        InstallHostQueue(d.Get(0));
        InstallSwitchQueue(c, d.Get(1), c.link_bps, SwitchName(c, tor) + "->h" + std::to_string(h));
        d.Get(0)->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&OnDeviceDrop));
        d.Get(1)->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&OnDeviceDrop));
        d.Get(1)->TraceConnectWithoutContext("MacRx", MakeCallback(&OnSwitchRx));
        next_subnet();
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        host_addr[h] = ifs.GetAddress(0);
    }
    if (c.topology != "star")
    {
        Ptr<Node> core = switches.Get(c.racks);
        for (uint32_t r = 0; r < c.racks; r++)
        {
            NetDeviceContainer d = fabric.Install(switches.Get(r), core);
            InstallSwitchQueue(c, d.Get(0), c.fabric_bps, "tor" + std::to_string(r) + "->fabric");
            InstallSwitchQueue(c, d.Get(1), c.fabric_bps, "fabric->tor" + std::to_string(r));
            d.Get(0)->TraceConnectWithoutContext("MacRx", MakeCallback(&OnSwitchRx));
            d.Get(1)->TraceConnectWithoutContext("MacRx", MakeCallback(&OnSwitchRx));
            next_subnet();
            addr.Assign(d);
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    for (uint32_t f = 0; f < n; f++)
    {
        const Flow& fl = flows[f];
        uint16_t port = 10000 + f;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sink.Install(hosts.Get(fl.dst));
        sa.Start(Seconds(0));
        sa.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, f));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(host_addr[fl.dst], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(fl.size));
        bulk.SetAttribute("SendSize", UintegerValue(c.mss));
        ApplicationContainer ba = bulk.Install(hosts.Get(fl.src));
        ba.Start(NanoSeconds(fl.start_ns));
        Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(ba.Get(0));
        Simulator::Schedule(NanoSeconds(fl.start_ns + 1), &ConnectSocket, f, app);
    }
    Simulator::Stop(NanoSeconds(c.stop_ns));
    Simulator::Run();
    Simulator::Destroy();
    return g_res;
}
} // namespace incast_crosscheck
