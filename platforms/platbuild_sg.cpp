/* platbuild_sg.cpp: a generated machine built in SimGrid's memory, without XML (platbuild_sg.h).
 * Besides sim/observe/links_sg.cpp, the only C++ of hybridsim: SimGrid 3.32 builds platforms
 * only through its C++ API.
 *
 * The builder is a sink of the machine's walk (pg_describe), so it creates exactly what the
 * XML writer writes, in the same order (links, hosts and their models' resources come into
 * being in the XML's order), with the same text values parsed by the same SimGrid functions.
 * Zones the walk calls stars are SimGrid StarZones (the XML's Full zones with a zoneRoute per
 * pair of children give the same routes; test_platform_gen compares them).
 *
 * Why not simgrid_load_platform: three costs of SimGrid 3.32 grow with the square of the
 * machine. A new host's name is looked up in every zone of the tree (HostImpl's constructor,
 * NetZoneImpl::get_host_by_name_or_null); sealing a zone walks every host of the tree
 * (NetZoneImpl::seal -> get_all_hosts); each route between zones searches the tree from its
 * zone (get_netzone_recursive). 17,408 GPUs took 30 s to load and seal. Here the whole machine
 * is built under its root zone while that zone is not yet attached to the engine's root (an
 * empty zone created first, which SimGrid makes the root): the engine's look-ups and walks
 * then see an empty tree, every zone below the machine is sealed as it closes, and the machine
 * is attached and sealed last, one walk over its hosts. Routes between zones are stars: one per
 * child, searched from the zone that holds them.
 *
 * Routed uplinks (pg_uplink_routing other than FAT) cannot be zones: SimGrid picks the links
 * between two zones from the zones alone, while a cable is chosen per pair of GPUs. The machine
 * is then one zone of its own class (RoutedMachine) holding every host and link, whose route
 * between two hosts is the one the zones would give (platroute.c resolves the walk as SimGrid
 * does), each uplink replaced by the cable the pair takes. */
#include "platbuild_sg.h"

extern "C" {
#include "platroute.h"
#include "units.h"
}

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/config.hpp>

#include <cstdio>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using simgrid::kernel::resource::StandardLinkImpl;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::NetZoneImpl;
using simgrid::kernel::routing::Route;
using simgrid::s4u::Link;
using simgrid::s4u::LinkInRoute;
using simgrid::s4u::NetZone;

/* The engine's root: SimGrid makes the first zone created the root, and the machine is built
 * apart from it. Its name is one no generated machine uses. */
const char *const world_name = "hybridsim-world";

struct builder {
    NetZone *world = nullptr;
    NetZone *machine = nullptr;                       /* the walk's root zone */
    std::vector<NetZone *> open;                      /* the zones being built */
    std::unordered_map<std::string, NetPoint *> points; /* hosts, routers, zones */
    std::unordered_map<std::string, Link *> links;
    std::unordered_map<std::string, simgrid::s4u::Host *> hosts;
    std::string error;                                /* the first failure */
};

/* A zone's models are its parent's (NetZoneImpl::set_parent copies them); the machine has no
 * parent while it is built, so it takes the world's. */
void copy_models(NetZone *to, const NetZone *from)
{
    auto *t = to->get_impl();
    const auto *f = from->get_impl();
    t->set_network_model(f->get_network_model());
    t->set_cpu_pm_model(f->get_cpu_pm_model());
    t->set_cpu_vm_model(f->get_cpu_vm_model());
    t->set_disk_model(f->get_disk_model());
    t->set_host_model(f->get_host_model());
}

void zone_open(void *ctx, const char *name, pg_routing routing)
{
    auto *b = static_cast<builder *>(ctx);
    NetZone *z = routing == PG_STAR ? simgrid::s4u::create_star_zone(name)
                                    : simgrid::s4u::create_full_zone(name);
    if (b->open.empty()) {
        copy_models(z, b->world);
        b->machine = z;
    } else {
        z->set_parent(b->open.back());
    }
    b->points[name] = z->get_netpoint();
    b->open.push_back(z);
}

/* Every zone below the machine is sealed when it closes: the engine's walks see no host yet. */
void zone_close(void *ctx)
{
    auto *b = static_cast<builder *>(ctx);
    NetZone *z = b->open.back();
    b->open.pop_back();
    if (z == b->machine) {
        z->set_parent(b->world);
        z->seal();
        b->world->seal();
    } else {
        z->seal();
    }
}

void prop(void *ctx, const char *id, const char *value)
{
    static_cast<builder *>(ctx)->open.back()->set_property(id, value);
}

void note(void *ctx, const char *text)
{
    (void)ctx, (void)text; /* for readers of the XML */
}

void link(void *ctx, const char *name, const char *bw, const char *lat, pg_policy policy)
{
    auto *b = static_cast<builder *>(ctx);
    NetZone *z = b->open.back();
    Link *l = policy == PG_SPLITDUPLEX
                  ? static_cast<Link *>(z->create_split_duplex_link(name, std::string(bw)))
                  : z->create_link(name, std::string(bw))
                        ->set_sharing_policy(Link::SharingPolicy::FATPIPE);
    l->set_latency(std::string(lat))->seal();
    b->links[name] = l;
}

void host(void *ctx, const char *name, const char *speed)
{
    auto *b = static_cast<builder *>(ctx);
    auto *h = b->open.back()->create_host(name, std::string(speed))->seal();
    b->hosts[name] = h;
    b->points[name] = h->get_netpoint();
}

void router(void *ctx, const char *name)
{
    auto *b = static_cast<builder *>(ctx);
    b->points[name] = b->open.back()->create_router(name);
}

std::vector<LinkInRoute> in_route(const builder *b, const pg_hop *hops, int n)
{
    std::vector<LinkInRoute> v;
    v.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; i++) {
        const Link *l = b->links.at(hops[i].link);
        if (hops[i].dir == PG_NONE)
            v.emplace_back(l);
        else
            v.emplace_back(l, hops[i].dir == PG_UP ? LinkInRoute::Direction::UP
                                                   : LinkInRoute::Direction::DOWN);
    }
    return v;
}

void route(void *ctx, const char *src, const char *dst, const pg_hop *hops, int n)
{
    auto *b = static_cast<builder *>(ctx);
    b->open.back()->add_route(b->points.at(src), b->points.at(dst), nullptr, nullptr,
                              in_route(b, hops, n), true);
}

void star_route(void *ctx, const char *child, const char *gateway, const pg_hop *up, int n)
{
    auto *b = static_cast<builder *>(ctx);
    b->open.back()->add_route(b->points.at(child), nullptr, b->points.at(gateway), nullptr,
                              in_route(b, up, n), true);
}

/* ---------------------------------------------------------------- routed uplinks */

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

/* The sink that builds a RoutedMachine: zones only counted, hosts and links into the one zone
 * (an uplink as its cables), the zones' routes left to pm_hops. */
struct flat_builder {
    builder *b;
    RoutedMachine *machine = nullptr;
    NetZone *zone = nullptr;                          /* the machine's s4u face */
    const pg_params *p;
    int depth = 0;
};

void flat_zone_open(void *ctx, const char *name, pg_routing)
{
    auto *f = static_cast<flat_builder *>(ctx);
    if (f->depth++ > 0)
        return;
    f->machine = new RoutedMachine(name, f->p);
    f->zone = f->machine->get_iface();
    copy_models(f->zone, f->b->world);
    f->b->machine = f->zone;
}

void flat_zone_close(void *ctx)
{
    auto *f = static_cast<flat_builder *>(ctx);
    if (--f->depth > 0)
        return;
    f->zone->set_parent(f->b->world);
    f->zone->seal();
    f->b->world->seal();
}

void flat_prop(void *ctx, const char *id, const char *value)
{
    auto *f = static_cast<flat_builder *>(ctx);
    if (f->depth == 1)
        f->zone->set_property(id, value);
}

/* One split-duplex link or FATPIPE link of the zone, as resources; the bandwidth as text (as
 * the zones' build reads it) or a number (a cable's share). */
template <typename Bandwidth>
RoutedMachine::sides flat_link_sides(NetZone *z, const std::string &name, Bandwidth bw,
                                     const char *lat, pg_policy policy)
{
    if (policy == PG_SPLITDUPLEX) {
        auto *l = z->create_split_duplex_link(name, bw);
        l->set_latency(std::string(lat))->seal();
        return {l->get_link_up()->get_impl(), l->get_link_down()->get_impl()};
    }
    Link *l = z->create_link(name, bw)->set_sharing_policy(Link::SharingPolicy::FATPIPE);
    l->set_latency(std::string(lat))->seal();
    return {l->get_impl(), l->get_impl()};
}

void flat_link(void *ctx, const char *name, const char *bw, const char *lat, pg_policy policy)
{
    auto *f = static_cast<flat_builder *>(ctx);
    double bw_Bps;
    int level;
    int cables = pg_uplink_cables(f->p, name, &level);
    if (cables == 0) {
        f->machine->add_link(name, flat_link_sides(f->zone, name, std::string(bw), lat, policy));
        return;
    }
    if (un_parse(bw, UN_BANDWIDTH, &bw_Bps) != 0)
        throw std::runtime_error(std::string("bad bandwidth ") + bw + " of link " + name);
    char cable[PG_NAME_LEN];
    for (int c = 0; c < cables; c++) {
        pg_uplink_cable_name(name, c, cables, cable);
        f->machine->add_link(cable, flat_link_sides(f->zone, cable, bw_Bps / cables, lat,
                                                    policy));
    }
}

void flat_host(void *ctx, const char *name, const char *speed)
{
    auto *f = static_cast<flat_builder *>(ctx);
    auto *h = f->zone->create_host(name, std::string(speed))->seal();
    f->b->hosts[name] = h;
}

void flat_no_route(void *, const char *, const char *, const pg_hop *, int) {}
void flat_no_star(void *, const char *, const char *, const pg_hop *, int) {}

/* The hosts the walk built: GPUs and their host memories (and, in a routed machine, which GPU's
 * rack each one's routes are resolved in). */
void take_hosts(const pg_params *p, const builder &b, RoutedMachine *routed, sg_host_t *gpus,
                sg_host_t *host_mem)
{
    char name[PG_NAME_LEN];
    int n_gpus = p->nodes * p->gpus_per_node;
    for (int g = 0; g < n_gpus; g++) {
        pg_gpu_host(p, g, name);
        auto it = b.hosts.find(name);
        if (it == b.hosts.end())
            continue;
        gpus[g] = it->second;
        if (routed)
            routed->add_host(gpus[g]->get_netpoint(), g, name);
        pg_memory_host(p, g, name);
        auto mem = b.hosts.find(name);
        host_mem[g] = mem == b.hosts.end() ? nullptr : mem->second;
        if (routed && host_mem[g])
            routed->add_host(host_mem[g]->get_netpoint(), g, name);
    }
}

} // namespace

extern "C" int psg_build(const pg_params *p, const unsigned char *racks, sg_host_t *gpus,
                         sg_host_t *host_mem, char *err)
{
    builder b;
    flat_builder f{&b, nullptr, nullptr, p};
    const pg_sink zones = {&b, zone_open, zone_close, prop, note, link, host, router, route,
                           star_route}; /* in pg_sink's order */
    const pg_sink flat = {&f, flat_zone_open, flat_zone_close, flat_prop, note, flat_link,
                          flat_host, note /* no routers */, flat_no_route, flat_no_star};
    bool routed = p->uplink_routing != PG_UPLINKS_FAT;
    try {
        b.world = simgrid::s4u::create_full_zone(world_name);
        pg_describe(p, racks, routed ? &flat : &zones);
        simgrid::s4u::Engine::on_platform_created();
        take_hosts(p, b, f.machine, gpus, host_mem);
        if (routed && f.machine->open(err) != HS_OK)
            return HS_EINTERNAL;
    } catch (const std::exception &e) {
        return hs_fail(err, HS_EINTERNAL, "building the platform in SimGrid: %s", e.what());
    }
    return HS_OK;
}

extern "C" int psg_cfg_set(const char *name, const char *value, char *why, size_t len)
{
    try {
        simgrid::config::set_as_string(name, value);
    } catch (const std::exception &e) {
        std::string what = e.what(); /* a bad key lists every key after the first line */
        std::snprintf(why, len, "%s", what.substr(0, what.find('\n')).c_str());
        return -1;
    }
    return 0;
}
