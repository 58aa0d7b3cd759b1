/* platrouted_sg.cpp: the machine with routed uplinks as one SimGrid zone of its own
 * (platrouted_sg.hpp).
 *
 * RoutedMachine holds every host and link of the walk, each uplink as its cables, and answers
 * SimGrid's question "which links from host a to host b" (get_local_route, asked for every
 * message) with pm_hops's route through the zones the XML would have, each uplink hop replaced
 * by the cable pg_uplink_cable picks for the pair; its latency is pm_hops's, summed in
 * SimGrid's own order, so a route alone times exactly as in the zones' build. A pair's route
 * is found once and kept. */
#include "platrouted_sg.hpp"

extern "C" {
#include "platroute.h"
#include "units.h"
}

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

using simgrid::kernel::resource::StandardLinkImpl;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::NetZoneImpl;
using simgrid::kernel::routing::Route;
using simgrid::s4u::Link;
using simgrid::s4u::NetZone;

/* The whole machine as one zone that routes each pair of its hosts itself. */
class RoutedMachine : public NetZoneImpl {
  public:
    /* A link direction's resources: UP and DOWN of a split-duplex link, or the link twice. */
    struct sides {
        StandardLinkImpl *up, *down;
    };
    /* A host's GPU (a GPU of its node for a host memory: which rack to resolve) and name. */
    struct host_info {
        int gpu = -1;
        std::string name;
    };

    RoutedMachine(const std::string &name, const pg_params *p) : NetZoneImpl(name), p_(p) {}
    ~RoutedMachine() override { pm_free(pm_); }
    RoutedMachine(const RoutedMachine &) = delete;
    RoutedMachine &operator=(const RoutedMachine &) = delete;

    int open(char *err) { return pm_open(p_, &pm_, err); }
    void add_link(const std::string &name, sides s) { links_[name] = s; }
    void add_host(const NetPoint *point, int gpu, const std::string &name)
    {
        if (hosts_.size() <= point->id())
            hosts_.resize(point->id() + 1);
        hosts_[point->id()] = {gpu, name};
    }

  protected:
    void get_local_route(const NetPoint *src, const NetPoint *dst, Route *into,
                         double *latency) override;

  private:
    struct route {
        std::vector<StandardLinkImpl *> links;
        double latency_s = 0;
    };
    const route &resolve(const NetPoint *src, const NetPoint *dst);
    StandardLinkImpl *resource(const pg_hop &hop, int src_gpu, int dst_gpu) const;

    const pg_params *p_;
    plat_machine *pm_ = nullptr;
    std::unordered_map<std::string, sides> links_;    /* cables instead of the uplinks */
    std::vector<host_info> hosts_;                     /* by netpoint id */
    std::unordered_map<uint64_t, route> routes_;       /* by (src id, dst id), once found */
};

/* The resource a hop of the zones' route crosses: an uplink's cable for this pair of GPUs. */
StandardLinkImpl *RoutedMachine::resource(const pg_hop &hop, int src_gpu, int dst_gpu) const
{
    int level;
    int cables = pg_uplink_cables(p_, hop.link, &level);
    std::string name = hop.link;
    if (cables > 0) {
        char cable[PG_NAME_LEN];
        pg_uplink_cable_name(hop.link, pg_uplink_cable(p_, level, cables, src_gpu, dst_gpu),
                             cables, cable);
        name = cable;
    }
    auto it = links_.find(name);
    if (it == links_.end())
        throw std::runtime_error("no link " + name + " in the routed machine");
    return hop.dir == PG_DOWN ? it->second.down : it->second.up;
}

const RoutedMachine::route &RoutedMachine::resolve(const NetPoint *src, const NetPoint *dst)
{
    uint64_t key = static_cast<uint64_t>(src->id()) << 32 | dst->id();
    auto found = routes_.find(key);
    if (found != routes_.end())
        return found->second;
    const host_info &a = hosts_.at(src->id()), &b = hosts_.at(dst->id());
    pg_hop hops[PM_MAX_ROUTE];
    route r;
    int n = pm_hops(pm_, a.gpu, a.name.c_str(), b.gpu, b.name.c_str(), hops, PM_MAX_ROUTE,
                    &r.latency_s);
    if (n <= 0)
        throw std::runtime_error("no route from " + a.name + " to " + b.name);
    for (int i = 0; i < n; i++)
        r.links.push_back(resource(hops[i], a.gpu, b.gpu));
    return routes_.emplace(key, std::move(r)).first->second;
}

/* SimGrid asks once a message, for two hosts of this zone (it has no child zones). */
void RoutedMachine::get_local_route(const NetPoint *src, const NetPoint *dst, Route *into,
                                    double *latency)
{
    const route &r = resolve(src, dst);
    into->link_list_.insert(into->link_list_.end(), r.links.begin(), r.links.end());
    if (latency)
        *latency += r.latency_s;
}

/* ---------------------------------------------------------------- the walk's sink */

/* The sink that builds a RoutedMachine: zones only counted, hosts and links into the one zone
 * (an uplink as its cables), the zones' routes left to pm_hops. */
namespace {

void flat_zone_open(void *ctx, const char *name, pg_routing)
{
    auto *f = static_cast<psg_routed *>(ctx);
    if (f->depth++ > 0)
        return;
    f->machine = new RoutedMachine(name, f->p);
    f->zone = f->machine->get_iface();
    psg_copy_models(f->zone, f->world);
}

void flat_zone_close(void *ctx)
{
    auto *f = static_cast<psg_routed *>(ctx);
    if (--f->depth > 0)
        return;
    f->zone->set_parent(f->world);
    f->zone->seal();
    f->world->seal();
}

void flat_prop(void *ctx, const char *id, const char *value)
{
    auto *f = static_cast<psg_routed *>(ctx);
    if (f->depth == 1)
        f->zone->set_property(id, value);
}

/* A bandwidth as text (as the zones' build reads it: SimGrid parses it) or a number (a cable's
 * share), for psg_fatpipe. */
std::string text_of(const std::string &bw) { return bw; }
std::string text_of(double) { return ""; }
double value_of(const std::string &name, const std::string &bw)
{
    return psg_bandwidth_Bps(name.c_str(), bw.c_str());
}
double value_of(const std::string &, double bw_Bps) { return bw_Bps; }

/* One split-duplex link or FATPIPE link of the zone, as resources. */
template <typename Bandwidth>
RoutedMachine::sides flat_link_sides(const psg_routed *f, const std::string &name, Bandwidth bw,
                                     const char *lat, pg_policy policy)
{
    NetZone *z = f->zone;
    if (policy == PG_SPLITDUPLEX) {
        auto *l = z->create_split_duplex_link(name, bw);
        l->set_latency(std::string(lat))->seal();
        return {l->get_link_up()->get_impl(), l->get_link_down()->get_impl()};
    }
    Link *l = psg_fatpipe(z, name, text_of(bw), value_of(name, bw), f->fastest_cable_Bps);
    l->set_latency(std::string(lat))->seal();
    return {l->get_impl(), l->get_impl()};
}

void flat_link(void *ctx, const char *name, const char *bw, const char *lat, pg_policy policy)
{
    auto *f = static_cast<psg_routed *>(ctx);
    double bw_Bps;
    int level;
    int cables = pg_uplink_cables(f->p, name, &level);
    if (cables == 0) {
        f->machine->add_link(name, flat_link_sides(f, name, std::string(bw), lat, policy));
        return;
    }
    if (un_parse(bw, UN_BANDWIDTH, &bw_Bps) != 0)
        throw std::runtime_error(std::string("bad bandwidth ") + bw + " of link " + name);
    char cable[PG_NAME_LEN];
    for (int c = 0; c < cables; c++) {
        pg_uplink_cable_name(name, c, cables, cable);
        f->machine->add_link(cable, flat_link_sides(f, cable, bw_Bps / cables, lat,
                                                    policy));
    }
}

void flat_host(void *ctx, const char *name, const char *speed)
{
    auto *f = static_cast<psg_routed *>(ctx);
    auto *h = f->zone->create_host(name, std::string(speed))->seal();
    f->hosts->put(h->get_cname(), h);
}

void flat_no_route(void *, const char *, const char *, const pg_hop *, int) {}
void flat_no_star(void *, const char *, const char *, const pg_hop *, int) {}

void flat_note(void *, const char *) {}

} // namespace

pg_sink psg_routed_sink(psg_routed *r)
{
    return {r,         flat_zone_open, flat_zone_close,
            flat_prop, flat_note,      flat_link,
            flat_host, flat_note /* no routers */, flat_no_route,
            flat_no_star, false /* its host memories too */}; /* in pg_sink's order */
}

void psg_routed_host(psg_routed *r, const simgrid::s4u::Host *h, int gpu, const char *name)
{
    r->machine->add_host(h->get_netpoint(), gpu, name);
}

int psg_routed_open(psg_routed *r, char *err)
{
    return r->machine->open(err);
}
