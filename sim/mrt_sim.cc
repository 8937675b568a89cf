// SPDX-License-Identifier: GPL-2.0
/*
 * ns-3 model of a MetaRoCE fabric driven by the transport core itself.
 *
 * The sender and receiver decisions (path choice, PSN/SACK, loss
 * detection, RTO/TLP, AIMD on ECN and loss, ACK generation) are the
 * drivers/infiniband/sw/metaroce/mrt_*.c files compiled with gcc against
 * the userspace shim (kunit/user/) and linked here; the packets on the
 * simulated wire are built and parsed by mrt_wire.c. This file only moves
 * those packets (ns-3 UDP/IPv4 over point-to-point links, leaf-spine planes
 * with per-flow ECMP on the 5-tuple and RED/ECN queues), runs the core's
 * timers on the simulator clock and measures.
 *
 * A go-back-N RoCEv2 model (one path, NAK on PSN sequence error, resend
 * from the NAKed PSN) runs in the same fabric as the baseline.
 *
 * One configuration per run; the result is one JSON object on stdout.
 * sim/run.sh sweeps the scenarios (Documentation/simulation.rst).
 */
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

extern "C" {
#include "mrt_conn.h"
#include "mrt_wire.h"
}
/* the shim's function-like min/max macros must not reach C++ code */
#undef min
#undef max

using namespace ns3;

namespace {

/* ------------------------------------------------------- parameters -- */

struct Params {
	std::string scenario = "loss";
	std::string transport = "mrt";	/* mrt | gbn */
	uint32_t planes = 1;
	uint32_t leaves = 2;
	uint32_t spines = 4;
	uint32_t hostsPerLeaf = 1;
	double linkGbps = 100;
	double linkDelayUs = 1;
	uint32_t payload = 4096;
	uint32_t paths = 8;		/* MetaRoCE paths per connection */
	double loss = 0;		/* random drop at the receiving NICs */
	uint64_t bytes = 16 << 20;	/* per connection, 0 = unbounded */
	double simMs = 0;		/* stop time, 0 = when all flows finish */
	uint32_t senders = 8;		/* incast */
	uint32_t connsPerHost = 1;	/* planes */
	uint32_t redMinTh = 20;
	uint32_t redMaxTh = 80;
	uint32_t bufPkts = 500;		/* per switch egress queue */
	uint32_t gbnWindow = 512;	/* packets */
	double gbnRtoUs = 1000;
	double binUs = 5;		/* goodput bins */
	uint32_t seed = 1;
	double failAtMs = 0;		/* planes: plane 0 fails here, 0 = never */
	int lossHost = -1;		/* host whose NICs drop, -1 = every host */
	double farDelayUs = 0;		/* scale-across: last leaf's uplinks */
};

Params P;

/* simulator time -> core clock; the core reads 0 as "no deadline" */
const uint64_t kClockBase = 1000000000ULL;

uint64_t NowNs()
{
	return (uint64_t)Simulator::Now().GetNanoSeconds() + kClockBase;
}

Time AtNs(uint64_t coreNs)
{
	uint64_t now = NowNs();

	return NanoSeconds(coreNs > now ? (int64_t)(coreNs - now) : 0);
}

/* ns-3's MilliSeconds()/MicroSeconds() take integers: keep fractions */
Time Us(double us)
{
	return NanoSeconds((int64_t)std::llround(us * 1000));
}

uint64_t Mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

const uint16_t kGbnPort = 4791;	/* RoCEv2's port for the baseline */
const uint8_t kEct0 = 0x02;
const uint32_t kIpUdpPpp = 20 + 8 + 2;

/* ------------------------------------------ per-flow ECMP switches -- */

/*
 * Switch routing: longest prefix match, then one of the equal-cost
 * egress interfaces chosen by a hash of the 5-tuple salted per switch
 * (what a switch's L4 ECMP hash does: one UDP source port = one route).
 */
class EcmpRouting : public Ipv4RoutingProtocol {
public:
	struct Hop {
		uint32_t iface;
		Ipv4Address gw;
	};
	struct Entry {
		uint32_t net, mask;
		std::vector<Hop> hops;
	};

	static TypeId GetTypeId()
	{
		static TypeId tid = TypeId("MrtSimEcmpRouting")
			.SetParent<Ipv4RoutingProtocol>()
			.AddConstructor<EcmpRouting>();
		return tid;
	}

	void AddRoute(Ipv4Address net, Ipv4Mask mask, uint32_t iface,
		      Ipv4Address gw)
	{
		for (auto &e : table_)
			if (e.net == net.Get() && e.mask == mask.Get()) {
				e.hops.push_back({iface, gw});
				return;
			}
		table_.push_back({net.Get(), mask.Get(), {{iface, gw}}});
	}

	void SetSalt(uint64_t s) { salt_ = s; }

	Ptr<Ipv4Route> RouteOutput(Ptr<Packet>, const Ipv4Header &,
				   Ptr<NetDevice>,
				   Socket::SocketErrno &err) override
	{
		err = Socket::ERROR_NOROUTETOHOST;
		return nullptr;
	}

	bool RouteInput(Ptr<const Packet> p, const Ipv4Header &h,
			Ptr<const NetDevice> idev, UnicastForwardCallback ucb,
			MulticastForwardCallback, LocalDeliverCallback lcb,
			ErrorCallback ecb) override
	{
		uint32_t dst = h.GetDestination().Get();
		const Entry *best = nullptr;

		for (uint32_t i = 0; i < ipv4_->GetNInterfaces(); i++)
			for (uint32_t a = 0; a < ipv4_->GetNAddresses(i); a++)
				if (ipv4_->GetAddress(i, a).GetLocal().Get() == dst) {
					lcb(p, h, i);
					return true;
				}
		for (const auto &e : table_)
			if ((dst & e.mask) == e.net &&
			    (!best || e.mask > best->mask))
				best = &e;
		if (!best) {
			ecb(p, h, Socket::ERROR_NOROUTETOHOST);
			return false;
		}
		const Hop &hop = best->hops[Pick(p, h, best->hops.size())];
		Ptr<Ipv4Route> r = Create<Ipv4Route>();

		r->SetDestination(h.GetDestination());
		r->SetSource(ipv4_->GetAddress(hop.iface, 0).GetLocal());
		r->SetGateway(hop.gw);
		r->SetOutputDevice(ipv4_->GetNetDevice(hop.iface));
		ucb(r, p, h);
		return true;
	}

	void NotifyInterfaceUp(uint32_t) override {}
	void NotifyInterfaceDown(uint32_t) override {}
	void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override {}
	void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override {}
	void SetIpv4(Ptr<Ipv4> ipv4) override { ipv4_ = ipv4; }
	void PrintRoutingTable(Ptr<OutputStreamWrapper>,
			       Time::Unit) const override {}

private:
	size_t Pick(Ptr<const Packet> p, const Ipv4Header &h, size_t n)
	{
		uint64_t ports = 0;

		if (n == 1)
			return 0;
		if (h.GetProtocol() == UdpL4Protocol::PROT_NUMBER) {
			UdpHeader u;

			p->PeekHeader(u);
			ports = ((uint64_t)u.GetSourcePort() << 16) |
				u.GetDestinationPort();
		}
		uint64_t k = Mix64(salt_ ^ Mix64(((uint64_t)h.GetSource().Get() << 32) |
						 h.GetDestination().Get()) ^
				   Mix64(ports ^ ((uint64_t)h.GetProtocol() << 40)));
		return (size_t)(k % n);
	}

	Ptr<Ipv4> ipv4_;
	std::vector<Entry> table_;
	uint64_t salt_ = 0;
};

class EcmpRoutingHelper : public Ipv4RoutingHelper {
public:
	EcmpRoutingHelper *Copy() const override
	{
		return new EcmpRoutingHelper(*this);
	}
	Ptr<Ipv4RoutingProtocol> Create(Ptr<Node>) const override
	{
		return CreateObject<EcmpRouting>();
	}
};

/* --------------------------------------------------------- fabric -- */

struct Host;

struct Fabric {
	NodeContainer hosts;
	std::vector<NodeContainer> leaves, spines;	/* per plane */
	std::vector<Ptr<QueueDisc>> switchQueues;
	/* egress queue of the leaf port towards host 0, per plane */
	std::vector<Ptr<QueueDisc>> host0Queues;
	std::vector<Ptr<NetDevice>> leafUplinks;	/* plane 0 only */
	std::vector<Host *> hostObjs;
	uint32_t peakQueue = 0;
};

Fabric F;

Ipv4Address HostAddr(uint32_t plane, uint32_t host)
{
	uint32_t l = host / P.hostsPerLeaf, h = host % P.hostsPerLeaf;

	return Ipv4Address((10U << 24) | (plane << 16) | (l << 8) | (4 * h + 1));
}

void TrackQueue(uint32_t, uint32_t now)
{
	if (now > F.peakQueue)
		F.peakQueue = now;
}

void BuildFabric(uint32_t nHosts)
{
	PointToPointHelper p2p;
	InternetStackHelper hostStack, switchStack;
	Ipv4StaticRoutingHelper staticHelper;
	EcmpRoutingHelper ecmpHelper;
	TrafficControlHelper red, hostTc;
	char rate[32], delay[32];

	P.leaves = std::max(P.leaves, (nHosts + P.hostsPerLeaf - 1) / P.hostsPerLeaf);
	if (P.hostsPerLeaf > 64 || P.leaves > 255 || P.spines > 64 || P.planes > 8) {
		fprintf(stderr, "fabric too large for the address plan\n");
		exit(2);
	}
	snprintf(rate, sizeof(rate), "%gGbps", P.linkGbps);
	snprintf(delay, sizeof(delay), "%gus", P.linkDelayUs);
	p2p.SetDeviceAttribute("DataRate", StringValue(rate));
	p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
	/* a one-packet device queue: the queue disc holds the backlog */
	p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
	p2p.SetChannelAttribute("Delay", StringValue(delay));

	red.SetRootQueueDisc("ns3::RedQueueDisc",
			     "UseEcn", BooleanValue(true),
			     "UseHardDrop", BooleanValue(false),
			     "Gentle", BooleanValue(true),
			     "QW", DoubleValue(1.0),	/* instantaneous queue */
			     "LInterm", DoubleValue(5.0),
			     "MinTh", DoubleValue(P.redMinTh),
			     "MaxTh", DoubleValue(P.redMaxTh),
			     "MeanPktSize", UintegerValue(P.payload + 80),
			     "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, P.bufPkts)),
			     "LinkBandwidth", DataRateValue(DataRate(rate)),
			     "LinkDelay", TimeValue(Time(delay)));
	/*
	 * A host's per-plane egress queue marks like a switch port: the host
	 * paces at planes x link rate and the core may favour one plane, so
	 * without marks that plane's backlog would only grow the RTT (the
	 * windows are not limited by anything else). No drops at the host.
	 */
	if (getenv("SIM_HOST_FIFO"))
		hostTc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
					QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 100000)));
	else
		hostTc.SetRootQueueDisc("ns3::RedQueueDisc",
				     "UseEcn", BooleanValue(true),
				     "UseHardDrop", BooleanValue(false),
				     "Gentle", BooleanValue(true),
				     "QW", DoubleValue(1.0),
				     "LInterm", DoubleValue(5.0),
				     "MinTh", DoubleValue(P.redMinTh),
				     "MaxTh", DoubleValue(P.redMaxTh),
				     "MeanPktSize", UintegerValue(P.payload + 80),
				     "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 100000)),
				     "LinkBandwidth", DataRateValue(DataRate(rate)),
				     "LinkDelay", TimeValue(Time(delay)));

	F.hosts.Create(nHosts);
	hostStack.SetRoutingHelper(staticHelper);
	hostStack.Install(F.hosts);
	F.leaves.resize(P.planes);
	F.spines.resize(P.planes);
	F.host0Queues.resize(P.planes);
	for (uint32_t p = 0; p < P.planes; p++) {
		F.leaves[p].Create(P.leaves);
		F.spines[p].Create(P.spines);
		switchStack.SetRoutingHelper(ecmpHelper);
		switchStack.Install(F.leaves[p]);
		switchStack.Install(F.spines[p]);
	}

	for (uint32_t p = 0; p < P.planes; p++) {
		for (uint32_t g = 0; g < nHosts; g++) {
			uint32_t l = g / P.hostsPerLeaf, h = g % P.hostsPerLeaf;
			Ptr<Node> host = F.hosts.Get(g), leaf = F.leaves[p].Get(l);
			NetDeviceContainer d = p2p.Install(host, leaf);
			QueueDiscContainer q;

			hostTc.Install(d.Get(0));
			q = red.Install(d.Get(1));
			F.switchQueues.push_back(q.Get(0));
			if (g == 0)
				F.host0Queues[p] = q.Get(0);
			Ipv4AddressHelper a;
			a.SetBase(Ipv4Address((10U << 24) | (p << 16) | (l << 8) | (4 * h)),
				  "255.255.255.252");
			Ipv4InterfaceContainer ic = a.Assign(d);
			Ptr<Ipv4> hip = host->GetObject<Ipv4>();
			staticHelper.GetStaticRouting(hip)->AddNetworkRouteTo(
				Ipv4Address((10U << 24) | (p << 16)), Ipv4Mask("255.255.0.0"),
				ic.GetAddress(1), ic.Get(0).second);
			Ptr<EcmpRouting> lr = DynamicCast<EcmpRouting>(
				leaf->GetObject<Ipv4>()->GetRoutingProtocol());
			lr->AddRoute(ic.GetAddress(0), Ipv4Mask("255.255.255.255"),
				     ic.Get(1).second, ic.GetAddress(0));
		}
		for (uint32_t l = 0; l < P.leaves; l++) {
			Ptr<Node> leaf = F.leaves[p].Get(l);
			Ptr<EcmpRouting> lr = DynamicCast<EcmpRouting>(
				leaf->GetObject<Ipv4>()->GetRoutingProtocol());

			lr->SetSalt(Mix64(leaf->GetId() * 7919ULL + P.seed));
			for (uint32_t s = 0; s < P.spines; s++) {
				Ptr<Node> spine = F.spines[p].Get(s);
				bool far = P.farDelayUs > 0 && l + 1 == P.leaves;
				char farDelay[32];

				/* the last leaf is the far pod: its uplinks are the long haul */
				snprintf(farDelay, sizeof(farDelay), "%gus", far ? P.farDelayUs : P.linkDelayUs);
				p2p.SetChannelAttribute("Delay", StringValue(farDelay));
				NetDeviceContainer d = p2p.Install(leaf, spine);
				QueueDiscContainer q = red.Install(d);

				F.switchQueues.push_back(q.Get(0));
				F.switchQueues.push_back(q.Get(1));
				if (p == 0)
					F.leafUplinks.push_back(d.Get(0));
				Ipv4AddressHelper a;
				a.SetBase(Ipv4Address((11U << 24) | (p << 16) | (l << 8) | (4 * s)),
					  "255.255.255.252");
				Ipv4InterfaceContainer ic = a.Assign(d);
				lr->AddRoute(Ipv4Address((10U << 24) | (p << 16)),
					     Ipv4Mask("255.255.0.0"), ic.Get(0).second,
					     ic.GetAddress(1));
				Ptr<EcmpRouting> sr = DynamicCast<EcmpRouting>(
					spine->GetObject<Ipv4>()->GetRoutingProtocol());
				sr->AddRoute(Ipv4Address((10U << 24) | (p << 16) | (l << 8)),
					     Ipv4Mask("255.255.255.0"), ic.Get(1).second,
					     ic.GetAddress(0));
			}
		}
	}
	for (auto &q : F.host0Queues)
		q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&TrackQueue));
	if (P.loss > 0)
		for (uint32_t g = 0; g < nHosts; g++)
			for (uint32_t p = 0; p < P.planes; p++) {
				if (P.lossHost >= 0 && g != (uint32_t)P.lossHost)
					continue;
				Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();

				em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
				em->SetRate(P.loss);
				em->AssignStreams(1000 + g * 8 + p);
				F.hosts.Get(g)->GetDevice(1 + p)->SetAttribute(
					"ReceiveErrorModel", PointerValue(em));
			}
}

/* ---------------------------------------------------------- hosts -- */

struct Flow;

/* Scenario 6 reacts to every newly received segment. */
struct SegmentSink {
	virtual ~SegmentSink() = default;
	virtual void OnSegment(Flow *f, uint64_t seg) = 0;
};

struct Flow {
	virtual ~Flow() = default;
	/* put at most one packet on the wire; its bytes, 0 = nothing to send */
	virtual uint32_t SendOne() = 0;
	virtual void OnPacket(Ptr<Packet> p, bool ce, const uint8_t *hdr,
			      uint32_t hdrLen) = 0;

	uint32_t id = 0;
	Host *src = nullptr, *dst = nullptr;
	SegmentSink *sink = nullptr;
	uint32_t segsPerMsg = 256;	/* 1 MiB messages at 4 KiB */
	uint64_t totalSegs = 0;		/* 0 = unbounded */
	bool inReady = false;
	/* receiver */
	std::vector<bool> rcvd;
	uint64_t uniqueSegs = 0, dupSegs = 0;
	std::vector<uint32_t> bins;	/* unique segments per bin */
	/* sender */
	std::vector<bool> acked;
	uint64_t ackedSegs = 0, dataPkts = 0, ackedUnreceived = 0;
	double startS = 0, doneS = -1;	/* all data acked */
	double rxDoneS = -1;		/* all data received */

	bool MarkRcvd(uint64_t seg)
	{
		if (seg >= rcvd.size())
			rcvd.resize(std::max<size_t>(seg + 1, rcvd.size() * 2), false);
		if (rcvd[seg]) {
			dupSegs++;
			return false;
		}
		rcvd[seg] = true;
		uniqueSegs++;
		uint32_t b = (uint32_t)(Simulator::Now().GetNanoSeconds() / (P.binUs * 1000));
		if (b >= bins.size())
			bins.resize(b + 1, 0);
		bins[b]++;
		if (totalSegs && uniqueSegs == totalSegs)
			rxDoneS = Simulator::Now().GetSeconds();
		if (sink)
			sink->OnSegment(this, seg);
		return true;
	}

	bool MarkAcked(uint64_t seg)
	{
		if (seg >= acked.size())
			acked.resize(std::max<size_t>(seg + 1, acked.size() * 2), false);
		if (acked[seg])
			return false;
		acked[seg] = true;
		ackedSegs++;
		/* the sender must never believe in data the receiver lacks */
		if (seg >= rcvd.size() || !rcvd[seg])
			ackedUnreceived++;
		if (totalSegs && ackedSegs == totalSegs)
			doneS = Simulator::Now().GetSeconds();
		return true;
	}
};

std::vector<Flow *> flows;
std::vector<double> repickTimesMs;	/* every re-pick, simulated ms */

struct Host {
	uint32_t idx = 0;
	Ptr<Node> node;
	Ptr<UdpL4Protocol> udp;
	std::vector<Ipv4Address> addr;	/* per plane */
	std::deque<Flow *> ready;
	bool txScheduled = false;
	Time nicFree;
	double bitsPerNs = 0;		/* aggregate over the planes */

	void Wake(Flow *f)
	{
		if (!f->inReady) {
			f->inReady = true;
			ready.push_back(f);
		}
		Kick();
	}

	void Kick()
	{
		if (txScheduled || ready.empty())
			return;
		txScheduled = true;
		Time now = Simulator::Now();
		Simulator::Schedule(nicFree > now ? nicFree - now : Time(0),
				    &Host::TxStep, this);
	}

	/* round robin over the flows that have something to send */
	void TxStep()
	{
		txScheduled = false;
		for (size_t n = ready.size(); n > 0; n--) {
			Flow *f = ready.front();
			uint32_t bytes;

			ready.pop_front();
			bytes = f->SendOne();
			if (bytes) {
				ready.push_back(f);
				nicFree = Simulator::Now() +
					  NanoSeconds((int64_t)std::ceil((bytes + kIpUdpPpp) * 8 / bitsPerNs));
				Kick();
				return;
			}
			f->inReady = false;
		}
	}

	void Send(Ptr<Packet> p, uint32_t plane, Host *to, uint16_t sport,
		  uint16_t dport)
	{
		SocketIpTosTag tos;

		tos.SetTos(kEct0);
		p->AddPacketTag(tos);
		udp->Send(p, addr[plane], to->addr[plane], sport, dport);
	}

	void Receive(Ptr<Socket> s);
};

void Host::Receive(Ptr<Socket> s)
{
	Ptr<Packet> p;
	Address from;

	while ((p = s->RecvFrom(from))) {
		uint8_t hdr[MRW_HDR_MAX];
		uint32_t n = std::min<uint32_t>(p->GetSize(), sizeof(hdr));
		SocketIpTosTag tos;
		bool ce = false;
		uint32_t qpn;

		if (p->RemovePacketTag(tos))
			ce = (tos.GetTos() & 3) == 3;
		p->CopyData(hdr, n);
		if (n < 8)
			continue;
		memcpy(&qpn, hdr + 4, 4);	/* BTH dst_qpn / GBN flow id */
		qpn = ntohl(qpn);
		if (qpn < flows.size())
			flows[qpn]->OnPacket(p, ce, hdr, n);
	}
}

void BuildHosts(uint32_t nHosts)
{
	for (uint32_t g = 0; g < nHosts; g++) {
		Host *h = new Host();
		Ptr<Node> n = F.hosts.Get(g);

		h->idx = g;
		h->node = n;
		h->udp = n->GetObject<UdpL4Protocol>();
		h->bitsPerNs = P.linkGbps * P.planes;
		for (uint32_t p = 0; p < P.planes; p++)
			h->addr.push_back(HostAddr(p, g));
		for (uint16_t port : {(uint16_t)MRW_UDP_PORT, kGbnPort}) {
			Ptr<Socket> s = Socket::CreateSocket(n, UdpSocketFactory::GetTypeId());

			s->SetIpRecvTos(true);
			s->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
			s->SetRecvCallback(MakeCallback(&Host::Receive, h));
		}
		F.hostObjs.push_back(h);
	}
}

/* ------------------------------------- MetaRoCE: the core's decisions -- */

struct MrtFlow : Flow {
	/* sender and receiver halves: one struct mrt_conn at each end */
	std::vector<struct mrt_path> sPaths, rPaths;
	std::vector<struct mrt_retx_ent> sRetx, rRetx;
	struct mrt_conn s, r;
	EventId sTimer, rTimer;
	uint64_t sTimerAt = 0, rTimerAt = 0;
	uint64_t nextSeg = 0;
	uint64_t acks = 0, ce = 0, buildErrors = 0;
	std::vector<uint64_t> ackedBuf;
	std::vector<u32> isn;		/* initial PSN per path */

	static bool HandleLive(void *ctx, u64 handle)
	{
		MrtFlow *f = static_cast<MrtFlow *>(ctx);

		return handle >= f->acked.size() || !f->acked[handle];
	}

	void Init(uint32_t nPaths)
	{
		struct mrt_conn_cfg cfg;

		sPaths.resize(nPaths);
		rPaths.resize(nPaths);
		sRetx.resize(MRT_CONN_RETXQ_LEN(nPaths));
		rRetx.resize(MRT_CONN_RETXQ_LEN(nPaths));
		ackedBuf.resize(MRT_PATH_MAX_INFLIGHT);
		/*
		 * Initial PSNs are known to both ends, as after the driver's
		 * connection setup: a receiver that adopted the first PSN it
		 * sees would acknowledge a lost first packet it never got.
		 */
		isn.resize(nPaths);
		for (uint32_t i = 0; i < nPaths; i++)
			isn[i] = (u32)Mix64(((uint64_t)id << 8) | i);
		for (int side = 0; side < 2; side++) {
			memset(&cfg, 0, sizeof(cfg));
			cfg.paths = side ? rPaths.data() : sPaths.data();
			cfg.max_paths = (u16)nPaths;
			cfg.nr_active = (u16)nPaths;
			cfg.retxq = side ? rRetx.data() : sRetx.data();
			cfg.retxq_cap = MRT_CONN_RETXQ_LEN(nPaths);
			cfg.mtu = P.payload;
			cfg.tx_psn = isn.data();
			cfg.rx_psn = isn.data();
			if (mrt_conn_init(side ? &r : &s, &cfg)) {
				fprintf(stderr, "mrt_conn_init failed\n");
				exit(2);
			}
		}
		s.handle_live = HandleLive;
		s.handle_ctx = this;
	}

	uint16_t SourcePort(uint16_t path, uint16_t generation) const
	{
		return (uint16_t)(49152 + Mix64(((uint64_t)id << 32) |
						((uint64_t)path << 16) | generation) % 16384);
	}

	uint32_t Plane(uint16_t path) const { return path % P.planes; }

	void ArmSender()
	{
		uint64_t d = mrt_conn_next_deadline(&s);

		if (!d || (sTimer.IsRunning() && sTimerAt <= d))
			return;
		sTimer.Cancel();
		sTimerAt = d;
		sTimer = Simulator::Schedule(AtNs(d), &MrtFlow::OnSenderTimer, this);
	}

	void ArmReceiver()
	{
		uint64_t d = mrt_conn_next_deadline(&r);

		if (!d || (rTimer.IsRunning() && rTimerAt <= d))
			return;
		rTimer.Cancel();
		rTimerAt = d;
		rTimer = Simulator::Schedule(AtNs(d), &MrtFlow::OnReceiverTimer, this);
	}

	void OnSenderTimer()
	{
		uint64_t now = NowNs();
		u16 path;

		mrt_conn_on_timer(&s, now);
		/* a failed path restarts on a new source port (generation) */
		while (mrt_conn_take_repick(&s, now, &path))
			repickTimesMs.push_back(Simulator::Now().GetSeconds() * 1e3);
		ArmSender();
		src->Wake(this);
	}

	void OnReceiverTimer()
	{
		uint64_t now = NowNs(), dl;

		mrt_conn_on_timer(&r, now);
		for (u16 i = 0; i < r.max_paths; i++)
			if (mrt_conn_ack_due(&r, i, now, &dl))
				SendAck(i);
		ArmReceiver();
	}

	uint32_t SendOne() override
	{
		struct mrt_tx_decision d;
		struct mrt_pkt_info pi;
		uint8_t buf[MRW_HDR_MAX];
		uint64_t now = NowNs();
		uint64_t offer = (!totalSegs || nextSeg < totalSegs) ? nextSeg : MRT_NO_HANDLE;
		int kind, hl;

		if (s.error)
			return 0;
		kind = mrt_conn_next_tx(&s, now, offer, &d);
		if (kind == MRT_TX_NONE)
			return 0;
		if (kind == MRT_TX_NEW)
			nextSeg++;
		uint64_t seg = d.handle;
		uint64_t msn = seg / segsPerMsg, first = msn * segsPerMsg;
		uint64_t last = first + segsPerMsg;

		if (totalSegs && last > totalSegs)
			last = totalSegs;
		memset(&pi, 0, sizeof(pi));
		pi.opcode = MRW_OP_SEND;
		pi.flags = (seg == first ? MRW_F_FIRST : 0) |
			   (seg + 1 == last ? MRW_F_LAST : 0) |
			   (d.flags & MRT_TXF_ACK_REQ ? MRW_F_ACK_REQ : 0) |
			   (d.flags & MRT_TXF_RETX ? MRW_F_RETX : 0);
		pi.dst_qpn = id;
		pi.src_qpn = id;
		pi.conn_token = 0x5eed;
		pi.path_id = d.path_id;
		pi.psn = d.psn;
		pi.tsval = d.tsval;
		pi.payload_len = P.payload;
		pi.msn = (u32)msn;
		pi.rsn = (u32)msn;
		pi.offset = (u32)((seg - first) * P.payload);
		pi.msg_len = (u32)((last - first) * P.payload);
		hl = mrt_wire_build(buf, sizeof(buf), &pi);
		if (hl < 0) {
			buildErrors++;
			return 0;
		}
		Ptr<Packet> p = Create<Packet>(buf, hl);
		p->AddAtEnd(Create<Packet>(P.payload));
		dataPkts++;
		uint32_t size = p->GetSize();
		src->Send(p, Plane(d.path_id), dst, SourcePort(d.path_id, d.generation),
			  MRW_UDP_PORT);
		ArmSender();
		return size;
	}

	void SendAck(u16 path)
	{
		struct mrt_ack_info a;
		struct mrt_pkt_info pi;
		uint8_t buf[MRW_HDR_MAX];
		int hl;

		mrt_conn_fill_ack(&r, path, NowNs(), &a);
		memset(&pi, 0, sizeof(pi));
		pi.opcode = MRW_OP_ACK;
		pi.dst_qpn = id;
		pi.src_qpn = id;
		pi.conn_token = 0x5eed;
		pi.path_id = path;
		pi.ack.path_id = a.path_id;
		pi.ack.cum_psn = a.cum_psn;
		pi.ack.sack = a.sack;
		pi.ack.ce_count = a.ce_count;
		pi.ack.dup_count = a.dup_count;
		pi.ack.echo_tsval = a.echo_tsval;
		pi.ack.hold_ns = a.hold_ns;
		pi.ack.rate_hint_kbps = a.rate_hint_kbps;
		pi.ack.ack_flags = a.echo_retx ? MRW_ACKF_ECHO_RETX : 0;
		hl = mrt_wire_build(buf, sizeof(buf), &pi);
		if (hl < 0) {
			buildErrors++;
			return;
		}
		dst->Send(Create<Packet>(buf, hl), Plane(path), src,
			  SourcePort(path, 0), MRW_UDP_PORT);
	}

	void OnPacket(Ptr<Packet> p, bool ceMark, const uint8_t *hdr,
		      uint32_t hdrLen) override
	{
		struct mrt_pkt_info pi;
		uint64_t now = NowNs(), dl;

		if (mrt_wire_parse_hdr(hdr, hdrLen, p->GetSize(), &pi) != MRT_DROP_NONE) {
			buildErrors++;
			return;
		}
		if (pi.opcode == MRW_OP_SEND) {
			u32 fl = (ceMark ? MRT_RXF_CE : 0) |
				 (pi.flags & MRW_F_RETX ? MRT_RXF_RETX : 0) |
				 (pi.flags & MRW_F_ACK_REQ ? MRT_RXF_ACK_REQ : 0);
			bool gap;

			if (ceMark)
				ce++;
			if (mrt_conn_rx(&r, pi.path_id, pi.psn, pi.tsval, fl, now,
					&gap) == MRT_RX_NEW)
				MarkRcvd((uint64_t)pi.msn * segsPerMsg + pi.offset / P.payload);
			if (mrt_conn_ack_due(&r, pi.path_id, now, &dl))
				SendAck(pi.path_id);
			ArmReceiver();
		} else if (pi.opcode == MRW_OP_ACK) {
			struct mrt_ack_info a;
			u32 n = 0;

			memset(&a, 0, sizeof(a));
			a.path_id = pi.ack.path_id;
			a.cum_psn = pi.ack.cum_psn;
			a.sack = pi.ack.sack;
			a.ce_count = pi.ack.ce_count;
			a.dup_count = pi.ack.dup_count;
			a.echo_tsval = pi.ack.echo_tsval;
			a.hold_ns = pi.ack.hold_ns;
			a.echo_retx = pi.ack.ack_flags & MRW_ACKF_ECHO_RETX;
			a.rate_hint_kbps = pi.ack.rate_hint_kbps;
			acks++;
			if (mrt_conn_on_ack(&s, &a, now, ackedBuf.data(), &n) == 0)
				for (u32 i = 0; i < n; i++)
					MarkAcked(ackedBuf[i]);
			ArmSender();
			src->Wake(this);
		}
	}
};

/* ------------------------------------ RoCEv2 go-back-N (the baseline) -- */

/*
 * IB RC semantics on one path (one UDP source port, so one ECMP route):
 * the responder accepts only the expected PSN; the first out-of-sequence
 * packet draws one NAK (PSN sequence error) carrying the expected PSN and
 * later ones are dropped silently until that PSN arrives; duplicates are
 * acknowledged. The requester treats a NAK as an ACK of everything before
 * it and resends from the NAKed PSN; the local ACK timeout resends from
 * the oldest unacknowledged PSN. No congestion control (the loss sweep
 * runs one flow on an idle fabric).
 */
struct GbnFlow : Flow {
	enum : uint8_t { kData = 1, kAck = 2, kNak = 3 };
	static const uint32_t kDataHdr = 16;	/* BTH 12 + ICRC 4 */
	static const uint32_t kAckHdr = 20;	/* BTH + AETH + ICRC */
	static const uint32_t kAckEvery = 8;

	uint64_t una = 0, nxt = 0, epsn = 0;
	bool nakSent = false;
	uint32_t sinceAck = 0;
	EventId rto;
	uint16_t sport = 0;
	uint64_t naks = 0, timeouts = 0, resent = 0, highest = 0;

	static void Put(uint8_t *b, uint8_t type, uint32_t flow, uint64_t psn)
	{
		uint32_t v;

		memset(b, 0, kAckHdr);
		b[0] = type;
		v = htonl(flow);
		memcpy(b + 4, &v, 4);
		v = htonl((uint32_t)psn);
		memcpy(b + 8, &v, 4);
		v = htonl((uint32_t)(psn >> 32));
		memcpy(b + 12, &v, 4);
	}

	static uint64_t GetPsn(const uint8_t *b)
	{
		uint32_t lo, hi;

		memcpy(&lo, b + 8, 4);
		memcpy(&hi, b + 12, 4);
		return ((uint64_t)ntohl(hi) << 32) | ntohl(lo);
	}

	void ArmRto()
	{
		rto.Cancel();
		if (una < nxt)
			rto = Simulator::Schedule(Us(P.gbnRtoUs), &GbnFlow::OnRto, this);
	}

	void OnRto()
	{
		timeouts++;
		nxt = una;
		src->Wake(this);
	}

	uint32_t SendOne() override
	{
		uint8_t b[kAckHdr];

		if ((totalSegs && nxt >= totalSegs) || nxt - una >= P.gbnWindow)
			return 0;
		if (nxt < highest)
			resent++;
		Put(b, kData, id, nxt);
		Ptr<Packet> p = Create<Packet>(b, kDataHdr);
		p->AddAtEnd(Create<Packet>(P.payload));
		uint32_t size = p->GetSize();
		if (!rto.IsRunning())
			rto = Simulator::Schedule(Us(P.gbnRtoUs), &GbnFlow::OnRto, this);
		nxt++;
		highest = std::max(highest, nxt);
		dataPkts++;
		src->Send(p, 0, dst, sport, kGbnPort);
		return size;
	}

	void Reply(uint8_t type, uint64_t psn)
	{
		uint8_t b[kAckHdr];

		Put(b, type, id, psn);
		dst->Send(Create<Packet>(b, kAckHdr), 0, src, sport, kGbnPort);
	}

	void OnPacket(Ptr<Packet>, bool, const uint8_t *hdr, uint32_t n) override
	{
		if (n < kDataHdr)
			return;
		uint64_t psn = GetPsn(hdr);

		switch (hdr[0]) {
		case kData:
			if (psn == epsn) {
				epsn++;
				nakSent = false;
				MarkRcvd(psn);
				if (++sinceAck >= kAckEvery ||
				    (totalSegs && epsn == totalSegs)) {
					sinceAck = 0;
					Reply(kAck, epsn);
				}
			} else if (psn > epsn) {
				if (!nakSent) {
					nakSent = true;
					Reply(kNak, epsn);
				}
			} else {
				Reply(kAck, epsn);	/* duplicate */
			}
			break;
		case kAck:
		case kNak:
			if (psn > una) {
				for (uint64_t s = una; s < psn; s++)
					MarkAcked(s);
				una = psn;
				ArmRto();
			}
			if (hdr[0] == kNak) {
				naks++;
				if (psn >= una && psn < nxt)
					nxt = psn;	/* go back */
			}
			src->Wake(this);
			break;
		}
	}
};

/* ------------------------------------------------------- scenarios -- */

Flow *AddFlow(uint32_t from, uint32_t to, double startS)
{
	Flow *f;
	uint64_t segs = P.bytes ? (P.bytes + P.payload - 1) / P.payload : 0;

	if (P.transport == "gbn") {
		GbnFlow *g = new GbnFlow();

		g->sport = (uint16_t)(49152 + Mix64(flows.size() + P.seed * 131) % 16384);
		f = g;
	} else {
		MrtFlow *m = new MrtFlow();

		m->id = (uint32_t)flows.size();
		m->Init(P.paths);
		f = m;
	}
	f->id = (uint32_t)flows.size();
	f->src = F.hostObjs[from];
	f->dst = F.hostObjs[to];
	f->totalSegs = segs;
	f->startS = startS;
	flows.push_back(f);
	Simulator::Schedule(Seconds(startS), &Host::Wake, f->src, f);
	return f;
}

bool allDone;

void CheckDone()
{
	for (Flow *f : flows)
		if (!f->totalSegs || f->doneS < 0) {
			Simulator::Schedule(MicroSeconds(50), &CheckDone);
			return;
		}
	allDone = true;
	Simulator::Stop();
}

double BaseRttUs()
{
	/* host-leaf-spine-leaf-host and back, plus one data serialisation */
	return 8 * P.linkDelayUs + 4 * (P.payload + 100) * 8 / (P.linkGbps * 1000);
}

struct Totals {
	uint64_t drops = 0, marks = 0;
	uint64_t retx = 0, probes = 0, spurious = 0, rtos = 0, failures = 0;
	uint64_t dataPkts = 0, uniqueSegs = 0, dupSegs = 0, errors = 0;
};

Totals Collect()
{
	Totals t;

	for (auto &q : F.switchQueues) {
		const QueueDisc::Stats &st = q->GetStats();

		t.drops += st.nTotalDroppedPackets;
		t.marks += st.nTotalMarkedPackets;
	}
	for (Flow *f : flows) {
		t.dataPkts += f->dataPkts;
		t.uniqueSegs += f->uniqueSegs;
		t.dupSegs += f->dupSegs;
		t.errors += f->ackedUnreceived;
		if (auto *m = dynamic_cast<MrtFlow *>(f)) {
			t.retx += m->s.stats.retx_sent;
			t.probes += m->s.stats.probes;
			t.failures += m->s.stats.path_failures;
			t.errors += m->buildErrors + (m->s.error ? 1 : 0) +
				    m->s.stats.retxq_overflow;
			for (auto &p : m->sPaths) {
				t.spurious += p.tx.stats.spurious;
				t.rtos += p.tx.stats.rtos;
			}
		} else if (auto *g = dynamic_cast<GbnFlow *>(f)) {
			t.retx += g->resent;
			t.rtos += g->timeouts;
			t.probes += g->naks;
		}
	}
	return t;
}

void PrintCommon(const Totals &t)
{
	printf("\"transport\":\"%s\",\"planes\":%u,\"paths\":%u,\"link_gbps\":%g,"
	       "\"payload\":%u,\"base_rtt_us\":%.2f,\"seed\":%u,"
	       "\"data_pkts\":%" PRIu64 ",\"unique_segs\":%" PRIu64 ",\"dup_segs\":%" PRIu64
	       ",\"retx\":%" PRIu64 ",\"probes_or_naks\":%" PRIu64 ",\"spurious\":%" PRIu64
	       ",\"rtos\":%" PRIu64 ",\"path_failures\":%" PRIu64 ",\"switch_drops\":%" PRIu64
	       ",\"ecn_marks\":%" PRIu64 ",\"errors\":%" PRIu64,
	       P.transport.c_str(), P.planes, P.transport == "gbn" ? 1 : P.paths,
	       P.linkGbps, P.payload, BaseRttUs(), P.seed, t.dataPkts,
	       t.uniqueSegs, t.dupSegs, t.retx, t.probes, t.spurious, t.rtos,
	       t.failures, t.drops, t.marks, t.errors);
}

/* Payload bits per second that one link carries at line rate. */
double LinePayloadGbps()
{
	double hdr = P.transport == "gbn" ? GbnFlow::kDataHdr : MRW_BTH_LEN + MRW_SEND_LEN;

	return P.linkGbps * P.payload / (P.payload + hdr + kIpUdpPpp);
}

/*
 * Scenario 3: one connection between hosts on two leaves, random loss at
 * the receiving NIC; goodput = payload bytes / time to the last ACK.
 */
int RunLoss()
{
	P.hostsPerLeaf = 1;
	P.lossHost = 1;	/* data direction only, as netem on the sender's egress */
	BuildFabric(2);
	BuildHosts(2);
	Flow *f = AddFlow(0, 1, 0);
	Simulator::Schedule(MicroSeconds(50), &CheckDone);
	Simulator::Stop(Seconds(P.simMs ? P.simMs / 1000 : 10));
	Simulator::Run();
	Totals t = Collect();
	double secs = f->doneS > 0 ? f->doneS - f->startS : Simulator::Now().GetSeconds();
	double gbps = f->uniqueSegs * (double)P.payload * 8 / secs / 1e9;
	printf("{\"scenario\":\"loss\",\"loss\":%g,\"bytes\":%" PRIu64
	       ",\"complete\":%s,\"time_us\":%.1f,\"goodput_gbps\":%.3f,"
	       "\"line_payload_gbps\":%.3f,\"goodput_fraction\":%.4f,",
	       P.loss, P.bytes, allDone ? "true" : "false", secs * 1e6, gbps,
	       LinePayloadGbps(), gbps / P.linkGbps);
	PrintCommon(t);
	printf("}\n");
	return 0;
}

double Jain(const std::vector<double> &x)
{
	double s = 0, s2 = 0;

	for (double v : x) {
		s += v;
		s2 += v * v;
	}
	return s2 > 0 ? s * s / (x.size() * s2) : 0;
}

/*
 * Scenario 4: N senders start together towards host 0 and send without
 * end; Jain's index over sliding windows of per-bin goodput; time to fair
 * share is the end of the first window from which Jain >= 0.9 and the
 * receiver link is >= 80 % busy in every later window.
 */
int RunIncast()
{
	uint32_t n = P.senders;

	BuildFabric(n + 1);
	BuildHosts(n + 1);
	P.bytes = 0;
	for (uint32_t i = 1; i <= n; i++)
		AddFlow(i, 0, 0);
	double pktUs = (P.payload + 80) * 8 / (P.linkGbps * 1000);
	/* long enough for a few fairness windows (below) */
	double simMs = P.simMs ? P.simMs : std::max(2.0, 4 * 8 * n * pktUs / 1000);
	Simulator::Stop(Us(simMs * 1000));
	Simulator::Run();
	Totals t = Collect();
	uint32_t nb = (uint32_t)(simMs * 1000 / P.binUs);
	/*
	 * Jain needs a few packets per sender to mean anything: windows of
	 * max(one RTT, 8 packets per sender) at the receiver's line rate.
	 */
	uint32_t win = (uint32_t)std::ceil(std::max(BaseRttUs(), 8 * n * pktUs) / P.binUs);
	double winCap = LinePayloadGbps() * 1e3 * win * P.binUs / 8 / P.payload;
	int fairFrom = -1;
	uint32_t nw = nb > win ? nb - win : 0;	/* the last bin may be partial */
	std::vector<double> jains(nw), utils(nw);

	for (uint32_t b = 0; b < nw; b++) {
		std::vector<double> x;
		double sum = 0;

		for (Flow *f : flows) {
			double v = 0;

			for (uint32_t k = b; k < b + win && k < f->bins.size(); k++)
				v += f->bins[k];
			x.push_back(v);
			sum += v;
		}
		jains[b] = Jain(x);
		utils[b] = sum / winCap;
	}
	for (int b = (int)nw - 1; b >= 0; b--) {
		if (jains[b] < 0.9 || utils[b] < 0.8)
			break;
		fairFrom = b + (int)win;	/* the window's end */
	}
	/* Jain over the second half of the run, per-flow totals */
	std::vector<double> tail;
	for (Flow *f : flows) {
		double v = 0;

		for (uint32_t b = nb / 2; b < nb && b < f->bins.size(); b++)
			v += f->bins[b];
		tail.push_back(v);
	}
	double util = 0;
	for (uint32_t b = nw / 2; b < nw; b++)
		util += utils[b];
	util /= std::max<uint32_t>(1, nw - nw / 2);
	/* first fair window, and how often the later windows stay fair */
	int firstFair = -1;
	uint32_t fairWins = 0;
	for (uint32_t b = 0; b < nw; b++) {
		bool fair = jains[b] >= 0.9 && utils[b] >= 0.8;

		if (fair && firstFair < 0)
			firstFair = (int)b;
		if (firstFair >= 0 && fair)
			fairWins++;
	}
	double fairFrac = firstFair < 0 ? 0 : (double)fairWins / (nw - firstFair);
	double firstUs = firstFair < 0 ? -1.0 : (firstFair + win) * P.binUs;
	printf("{\"scenario\":\"incast\",\"senders\":%u,\"sim_ms\":%g,\"bin_us\":%g,"
	       "\"window_us\":%g,"
	       "\"first_fair_us\":%.1f,\"first_fair_rtts\":%.1f,\"fair_windows_after\":%.3f,"
	       "\"fair_after_us\":%.1f,\"fair_after_rtts\":%.1f,\"jain_tail\":%.4f,"
	       "\"util_tail\":%.4f,\"queue_peak_pkts\":%u,\"buf_pkts\":%u,",
	       n, simMs, P.binUs, win * P.binUs, firstUs,
	       firstUs < 0 ? -1.0 : firstUs / BaseRttUs(), fairFrac, fairFrom < 0 ? -1.0 : fairFrom * P.binUs,
	       fairFrom < 0 ? -1.0 : fairFrom * P.binUs / BaseRttUs(), Jain(tail),
	       util, F.peakQueue, P.bufPkts);
	PrintCommon(t);
	printf(",\"jain_bins\":[");
	for (uint32_t b = 0; b < nw; b++)
		printf("%s%.3f", b ? "," : "", jains[b]);
	printf("]}\n");
	return 0;
}

/*
 * Scenario 1: P planes, every host sends connsPerHost connections to the
 * host half the fabric away (a permutation: every path crosses the
 * spines); aggregate goodput / (hosts x P x one plane's payload rate) over
 * the second half of the run. With failAtMs (scenario 2) plane 0's leaf
 * uplinks go down at that time and goodput is reported per bin.
 */
void FailPlane0()
{
	for (auto &d : F.leafUplinks) {
		Ptr<PointToPointNetDevice> pd = DynamicCast<PointToPointNetDevice>(d);
		Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();

		em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
		em->SetRate(1.0);
		/* both ends drop: the plane carries nothing either way */
		Ptr<NetDevice> peer = pd->GetChannel()->GetDevice(0) == d ?
			pd->GetChannel()->GetDevice(1) : pd->GetChannel()->GetDevice(0);
		peer->SetAttribute("ReceiveErrorModel", PointerValue(em));
		d->SetAttribute("ReceiveErrorModel", PointerValue(em));
	}
}

int RunPlanes()
{
	uint32_t hosts = std::max<uint32_t>(2, P.leaves * P.hostsPerLeaf);

	BuildFabric(hosts);
	BuildHosts(hosts);
	P.bytes = 0;
	for (uint32_t h = 0; h < hosts; h++)
		for (uint32_t c = 0; c < P.connsPerHost; c++)
			AddFlow(h, (h + hosts / 2) % hosts, 0);
	double simMs = P.simMs ? P.simMs : 2;
	if (P.failAtMs > 0)
		Simulator::Schedule(Us(P.failAtMs * 1000), &FailPlane0);
	Simulator::Stop(Us(simMs * 1000));
	Simulator::Run();
	Totals t = Collect();
	uint32_t nb = (uint32_t)(simMs * 1000 / P.binUs);
	std::vector<double> gb(nb, 0);
	for (Flow *f : flows)
		for (uint32_t b = 0; b < nb && b < f->bins.size(); b++)
			gb[b] += f->bins[b] * (double)P.payload * 8 / (P.binUs * 1e3);
	double sum = 0;
	for (uint32_t b = nb / 2; b + 1 < nb; b++)
		sum += gb[b];
	sum /= std::max<uint32_t>(1, nb - 1 - nb / 2);
	double ideal = hosts * P.planes * LinePayloadGbps();
	/* where losses were declared: the failed plane vs. the others */
	uint64_t lost0 = 0, lostOther = 0, rto0 = 0, rtoOther = 0, failed = 0;
	size_t paths0 = 0;
	for (Flow *f : flows)
		if (auto *m = dynamic_cast<MrtFlow *>(f))
			for (size_t i = 0; i < m->sPaths.size(); i++) {
				const struct mrt_path_tx &tx = m->sPaths[i].tx;
				bool plane0 = i % P.planes == 0;

				paths0 += plane0;
				(plane0 ? lost0 : lostOther) += tx.stats.losses;
				(plane0 ? rto0 : rtoOther) += tx.stats.rtos;
				failed += tx.state == MRT_PATH_FAILED;
				if (plane0 && P.failAtMs > 0 && getenv("SIM_DEBUG"))
					fprintf(stderr, "flow %u path %zu: state %u inflight %u"
						" next %u una %u rtos %" PRIu64 " consecutive %u backoff %u"
						" rto_at %" PRIu64 " tlp_at %" PRIu64 " now %" PRIu64
						" probe_pending %d pwnd %u srtt %u rto_base %" PRIu64 "\n",
						m->id, i, tx.state,
						tx.inflight, tx.next_psn, tx.una, tx.stats.rtos,
						tx.consecutive_rtos, tx.backoff,
						mrt_path_tx_rto_deadline(&tx), mrt_path_tx_tlp_deadline(&tx),
						NowNs(), tx.probe_pending, m->s.cc->pwnd(&m->sPaths[i].cc),
						tx.srtt_ns, tx.rto_base_ns);
			}
	printf("{\"scenario\":\"planes\",\"hosts\":%u,\"connections\":%zu,\"sim_ms\":%g,"
	       "\"fail_at_ms\":%g,\"goodput_gbps\":%.2f,\"ideal_gbps\":%.2f,"
	       "\"scaling\":%.4f,\"losses_plane0\":%" PRIu64 ",\"losses_other_planes\":%" PRIu64
	       ",\"rtos_plane0\":%" PRIu64 ",\"rtos_other_planes\":%" PRIu64
	       ",\"paths_failed_at_end\":%" PRIu64 ",\"repicks\":%zu,\"first_repick_ms\":%.3f,"
	       "\"plane0_paths\":%zu,\"all_plane0_repicked_ms\":%.3f,",
	       hosts, flows.size(), simMs, P.failAtMs, sum, ideal, sum / ideal,
	       lost0, lostOther, rto0, rtoOther, failed, repickTimesMs.size(),
	       repickTimesMs.empty() ? -1.0 : repickTimesMs.front(),
	       paths0, repickTimesMs.size() < paths0 || !paths0 ? -1.0 :
	       repickTimesMs[paths0 - 1]);
	PrintCommon(t);
	printf(",\"goodput_bins_gbps\":[");
	for (uint32_t b = 0; b < nb; b++)
		printf("%s%.1f", b ? "," : "", gb[b]);
	printf("]}\n");
	return 0;
}

/*
 * Scenario 5: one connection between two pods joined by long links
 * (farDelayUs one way on each uplink of the far leaf, crossed once each
 * way); goodput over the second half, paths that carried data,
 * window per path at the end.
 */
int RunScale()
{
	P.hostsPerLeaf = 1;
	BuildFabric(2);
	BuildHosts(2);
	P.bytes = 0;
	Flow *f = AddFlow(0, 1, 0);
	double simMs = P.simMs ? P.simMs : 30;
	Simulator::Stop(Us(simMs * 1000));
	Simulator::Run();
	Totals t = Collect();
	MrtFlow *m = dynamic_cast<MrtFlow *>(f);
	uint32_t nb = (uint32_t)(simMs * 1000 / P.binUs), opened = 0;
	double sum = 0, pw = 0, pwMin = 1e9, pwMax = 0, srtt = 0;
	for (uint32_t b = nb / 2; b < nb && b < f->bins.size(); b++)
		sum += f->bins[b];
	double gbps = sum * P.payload * 8 / ((nb - nb / 2) * P.binUs * 1e3);
	if (m)
		for (auto &p : m->sPaths) {
			double w = m->s.cc->pwnd(&p.cc);

			opened += p.tx.stats.sent > 0;
			pw += w;
			pwMin = std::min(pwMin, w);
			pwMax = std::max(pwMax, w);
			srtt += mrt_path_tx_srtt(&p.tx) / 1000.0;
		}
	uint32_t np = m ? m->sPaths.size() : 1;
	double rtt = BaseRttUs() + 2 * (P.farDelayUs - P.linkDelayUs);
	double bdp = LinePayloadGbps() * 1e3 * rtt / 8 / P.payload;
	printf("{\"scenario\":\"scale\",\"far_delay_us\":%g,\"rtt_us\":%.1f,\"bdp_pkts\":%.0f,"
	       "\"sim_ms\":%g,\"goodput_gbps\":%.2f,\"utilisation\":%.4f,\"paths_opened\":%u,"
	       "\"pwnd_mean\":%.1f,\"pwnd_min\":%.0f,\"pwnd_max\":%.0f,\"pwnd_sum\":%.0f,"
	       "\"srtt_mean_us\":%.1f,",
	       P.farDelayUs, rtt, bdp, simMs, gbps, gbps / LinePayloadGbps(), opened,
	       pw / np, pwMin, pwMax, pw, srtt / np);
	PrintCommon(t);
	printf("}\n");
	return 0;
}

/*
 * Scenario 6: collectives over hosts (4 leaves x 16 hosts, 16 spines, one
 * plane by default). Every step is one message of chunkSegs segments;
 * a step counts as received when all of its segments are in (messages in
 * order, as the receiver's completion would report them).
 *  ring   ring All-Reduce: 2 (N - 1) steps; host i sends step s + 1 to
 *         i + 1 once it has received step s from i - 1
 *  a2a    All-to-All: every host sends M / N to every other host at once
 * Completion time: the last host's last step.
 */
struct Collective : SegmentSink {
	std::string kind;
	uint32_t n = 0, chunkSegs = 1, steps = 0, hostsDone = 0;
	std::vector<Flow *> out;			/* ring: i -> i + 1 */
	std::vector<std::vector<uint32_t>> got;	/* per flow, per step */
	std::vector<uint32_t> stepsIn;		/* per flow: completed steps */
	uint32_t flowsDone = 0;
	double doneS = -1;

	void OnSegment(Flow *f, uint64_t seg) override
	{
		uint32_t msn = (uint32_t)(seg / chunkSegs);
		auto &g = got[f->id];

		if (msn >= g.size())
			g.resize(msn + 1, 0);
		g[msn]++;
		uint32_t before = stepsIn[f->id];
		while (stepsIn[f->id] < g.size() && g[stepsIn[f->id]] == chunkSegs)
			stepsIn[f->id]++;
		for (uint32_t k = before; k < stepsIn[f->id]; k++)
			StepReceived(f, k);
	}

	void StepReceived(Flow *f, uint32_t k)
	{
		if (kind == "ring") {
			uint32_t host = f->dst->idx;

			if (k + 1 < steps) {
				Flow *o = out[host];

				o->totalSegs = (uint64_t)(k + 2) * chunkSegs;
				o->src->Wake(o);
			} else if (++hostsDone == n) {
				Finish();
			}
		} else if (++flowsDone == n * (n - 1)) {
			Finish();
		}
	}

	void Finish()
	{
		doneS = Simulator::Now().GetSeconds();
		Simulator::Stop();
	}
};

double CollSizeBytes = 1 << 20;

int RunCollective()
{
	uint32_t n = P.leaves * P.hostsPerLeaf;
	Collective *c = new Collective();

	BuildFabric(n);
	BuildHosts(n);
	c->kind = P.scenario == "allreduce" ? "ring" : "a2a";
	c->n = n;
	c->chunkSegs = (uint32_t)std::max<double>(1, std::ceil(CollSizeBytes / n / P.payload));
	c->steps = c->kind == "ring" ? 2 * (n - 1) : 1;
	P.bytes = 0;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			if (i == j || (c->kind == "ring" && j != (i + 1) % n))
				continue;
			Flow *f = AddFlow(i, j, 0);

			f->sink = c;
			f->segsPerMsg = c->chunkSegs;
			f->totalSegs = c->chunkSegs;	/* the first step */
			if (c->kind == "ring")
				c->out.push_back(f);
		}
	c->got.resize(flows.size());
	c->stepsIn.resize(flows.size(), 0);
	Simulator::Stop(Seconds(P.simMs ? P.simMs / 1000 : 10));
	Simulator::Run();
	Totals t = Collect();
	double us = c->doneS < 0 ? -1 : c->doneS * 1e6;
	if (c->doneS < 0 && getenv("SIM_DEBUG"))
		for (Flow *f : flows)
			if (auto *m = dynamic_cast<MrtFlow *>(f))
				if (m->ackedSegs < m->totalSegs || m->uniqueSegs < m->totalSegs)
					fprintf(stderr, "flow %u: total %" PRIu64 " next %" PRIu64 " acked %" PRIu64
						" rcvd %" PRIu64 " inflight %u retxq %u deadline %" PRIu64
						" now %" PRIu64 " inReady %d error %d\n", m->id, m->totalSegs,
						m->nextSeg, m->ackedSegs, m->uniqueSegs, mrt_conn_inflight(&m->s),
						m->s.retxq_len, mrt_conn_next_deadline(&m->s), NowNs(),
						m->inReady, m->s.error);
	if (c->doneS < 0 && getenv("SIM_DEBUG"))
		for (Flow *f : flows)
			if (auto *m = dynamic_cast<MrtFlow *>(f))
				if (m->uniqueSegs < m->totalSegs)
					for (size_t i = 0; i < m->rPaths.size(); i++) {
						const struct mrt_path_rx &rx = m->rPaths[i].rx;
						const struct mrt_path_tx &tx = m->sPaths[i].tx;

						fprintf(stderr, " path %zu rx: cum %u high %u new %" PRIu64
							" dup %" PRIu64 " oow %" PRIu64 " jumps %" PRIu64
							" abandoned %" PRIu64 " | tx: next %u una %u sent %" PRIu64
							" losses %" PRIu64 " spurious %" PRIu64 " rtos %" PRIu64
							" probes %" PRIu64 "\n", i, rx.cum_psn, rx.high_psn,
							rx.stats.rx_new, rx.stats.rx_dup, rx.stats.rx_out_of_window,
							rx.stats.rx_jumps, rx.stats.holes_abandoned, tx.next_psn,
							tx.una, tx.stats.sent, tx.stats.losses, tx.stats.spurious,
							tx.stats.rtos, tx.stats.probes);
					}
	/* algorithm bandwidth: the data each host contributes / time */
	printf("{\"scenario\":\"%s\",\"hosts\":%u,\"size_bytes\":%.0f,\"chunk_segs\":%u,"
	       "\"steps\":%u,\"loss\":%g,\"complete\":%s,\"time_us\":%.2f,\"algbw_gbps\":%.3f,",
	       P.scenario.c_str(), n, CollSizeBytes, c->chunkSegs, c->steps, P.loss,
	       c->doneS < 0 ? "false" : "true", us,
	       us > 0 ? CollSizeBytes * 8 / (us * 1e3) : 0.0);
	PrintCommon(t);
	printf("}\n");
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	CommandLine cmd;

	cmd.AddValue("scenario", "loss | incast | planes | scale | allreduce | alltoall", P.scenario);
	cmd.AddValue("transport", "mrt (the core) | gbn (RoCEv2 go-back-N)", P.transport);
	cmd.AddValue("planes", "planes per host", P.planes);
	cmd.AddValue("leaves", "leaf switches per plane", P.leaves);
	cmd.AddValue("spines", "spine switches per plane", P.spines);
	cmd.AddValue("hostsPerLeaf", "hosts per leaf", P.hostsPerLeaf);
	cmd.AddValue("linkGbps", "link rate", P.linkGbps);
	cmd.AddValue("linkDelayUs", "one-way delay per link", P.linkDelayUs);
	cmd.AddValue("payload", "payload bytes per packet", P.payload);
	cmd.AddValue("paths", "MetaRoCE paths per connection", P.paths);
	cmd.AddValue("loss", "drop probability at receiving NICs", P.loss);
	cmd.AddValue("bytes", "bytes per connection (loss)", P.bytes);
	cmd.AddValue("simMs", "simulated time", P.simMs);
	cmd.AddValue("senders", "incast senders", P.senders);
	cmd.AddValue("connsPerHost", "connections per host (planes)", P.connsPerHost);
	cmd.AddValue("redMinTh", "RED/ECN min threshold, packets", P.redMinTh);
	cmd.AddValue("redMaxTh", "RED/ECN max threshold, packets", P.redMaxTh);
	cmd.AddValue("bufPkts", "switch egress buffer, packets", P.bufPkts);
	cmd.AddValue("gbnWindow", "go-back-N window, packets", P.gbnWindow);
	cmd.AddValue("gbnRtoUs", "go-back-N local ACK timeout", P.gbnRtoUs);
	cmd.AddValue("binUs", "goodput bin width", P.binUs);
	cmd.AddValue("failAtMs", "planes: plane 0 fails at", P.failAtMs);
	cmd.AddValue("size", "allreduce/alltoall: bytes per host", CollSizeBytes);
	cmd.AddValue("farDelayUs", "scale: one-way delay of the far pod's uplinks", P.farDelayUs);
	cmd.AddValue("seed", "RNG run number", P.seed);
	cmd.Parse(argc, argv);
	if (P.paths < 1 || P.paths > MRT_MAX_PATHS || P.planes < 1 || !P.payload ||
	    P.payload > 8192) {
		fprintf(stderr, "bad parameters\n");
		return 2;
	}
	RngSeedManager::SetSeed(12345);
	RngSeedManager::SetRun(P.seed);

	int rc;
	if (P.scenario == "loss")
		rc = RunLoss();
	else if (P.scenario == "incast")
		rc = RunIncast();
	else if (P.scenario == "planes")
		rc = RunPlanes();
	else if (P.scenario == "scale")
		rc = RunScale();
	else if (P.scenario == "allreduce" || P.scenario == "alltoall")
		rc = RunCollective();
	else {
		fprintf(stderr, "unknown scenario %s\n", P.scenario.c_str());
		return 2;
	}
	fflush(stdout);
	Simulator::Destroy();
	return rc;
}
