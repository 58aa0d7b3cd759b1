/* platbuild_sg.cpp: a generated machine built in SimGrid's memory, without XML (platbuild_sg.h).
 * Besides sim/observe/links_sg.cpp, the only C++ of hybridsim: SimGrid 3.32 builds platforms
 * only through its C++ API.
 *
 * The builder is a sink of the machine's walk (pg_describe), so it creates exactly what the
 * XML writer writes, in the same order (links, hosts and their models' resources come into
 * being in the XML's order), with the same text values parsed by the same SimGrid functions,
 * except that a FATPIPE switch that caps no flow is a SHARED link too fast to fill, which
 * SimGrid's solve settles in one step a flow where a FATPIPE costs it all of the switch's
 * flows (psg_fatpipe, platrouted_sg.hpp).
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
 * Routed uplinks (pg_uplink_routing other than FAT) cannot be zones: the walk then builds one
 * zone of platrouted_sg.cpp's class instead. */
#include "platbuild_sg.h"

#include "platnames_sg.hpp"
#include "platrouted_sg.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/config.hpp>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#include "units.h"
}

/* SimGrid 3.32's stack size in bytes (src/kernel/context/Context.cpp: contexts/stack-size
 * times 1024, read as each actor's context is made), exported but in no installed header. */
namespace simgrid::kernel::context {
extern unsigned stack_size;
}

namespace {

using simgrid::kernel::routing::NetPoint;
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
    psg_names<NetPoint> points;                       /* hosts, routers, zones */
    psg_names<Link> links;
    psg_names<simgrid::s4u::Host> hosts;
    std::string error;                                /* the first failure */
    double fastest_cable_Bps = 0;                     /* pg_fastest_cable_Bps: psg_fatpipe */
};

} // namespace

/* A zone's models are its parent's (NetZoneImpl::set_parent copies them); the machine has no
 * parent while it is built, so it takes the world's. */
void psg_copy_models(NetZone *to, const NetZone *from)
{
    auto *t = to->get_impl();
    const auto *f = from->get_impl();
    t->set_network_model(f->get_network_model());
    t->set_cpu_pm_model(f->get_cpu_pm_model());
    t->set_cpu_vm_model(f->get_cpu_vm_model());
    t->set_disk_model(f->get_disk_model());
    t->set_host_model(f->get_host_model());
}

namespace {

void zone_open(void *ctx, const char *name, pg_routing routing)
{
    auto *b = static_cast<builder *>(ctx);
    NetZone *z = routing == PG_STAR ? simgrid::s4u::create_star_zone(name)
                                    : simgrid::s4u::create_full_zone(name);
    if (b->open.empty()) {
        psg_copy_models(z, b->world);
        b->machine = z;
    } else {
        z->set_parent(b->open.back());
    }
    b->points.put(z->get_netpoint()->get_cname(), z->get_netpoint());
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
                  : psg_fatpipe(z, name, bw, psg_bandwidth_Bps(name, bw), b->fastest_cable_Bps);
    l->set_latency(std::string(lat))->seal();
    b->links.put(l->get_cname(), l);
}

void host(void *ctx, const char *name, const char *speed)
{
    auto *b = static_cast<builder *>(ctx);
    auto *h = b->open.back()->create_host(name, std::string(speed))->seal();
    b->hosts.put(h->get_cname(), h);
    b->points.put(h->get_netpoint()->get_cname(), h->get_netpoint());
}

void router(void *ctx, const char *name)
{
    auto *b = static_cast<builder *>(ctx);
    NetPoint *r = b->open.back()->create_router(name);
    b->points.put(r->get_cname(), r);
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

/* The hosts the walk built: GPUs and their host memories (and, in a routed machine, which GPU's
 * rack each one's routes are resolved in). */
void take_hosts(const pg_params *p, const builder &b, psg_routed *routed, sg_host_t *gpus,
                sg_host_t *host_mem)
{
    char name[PG_NAME_LEN];
    int n_gpus = p->nodes * p->gpus_per_node;
    for (int g = 0; g < n_gpus; g++) {
        pg_gpu_host(p, g, name);
        gpus[g] = b.hosts.get(name);
        if (!gpus[g])
            continue;
        if (routed)
            psg_routed_host(routed, gpus[g], g, name);
        pg_memory_host(p, g, name);
        host_mem[g] = b.hosts.get(name);
        if (routed && host_mem[g])
            psg_routed_host(routed, host_mem[g], g, name);
    }
}

} // namespace

double psg_bandwidth_Bps(const char *name, const char *bw)
{
    double bw_Bps;
    if (un_parse(bw, UN_BANDWIDTH, &bw_Bps) != 0)
        throw std::runtime_error("bad bandwidth " + std::string(bw) + " of link " + name);
    return bw_Bps;
}

/* The property that marks a switch built as a SHARED link (psg_fatpipe): its nominal
 * bandwidth, as the walk wrote it. */
static const char *const switch_key = "hybridsim:switch-bandwidth";

Link *psg_fatpipe(NetZone *z, const std::string &name, const std::string &bw, double bw_Bps,
                  double fastest_cable_Bps)
{
    if (bw_Bps < fastest_cable_Bps) { /* it may cap a flow: SimGrid's FATPIPE */
        Link *l = bw.empty() ? z->create_link(name, bw_Bps) : z->create_link(name, bw);
        return l->set_sharing_policy(Link::SharingPolicy::FATPIPE);
    }
    char text[64];
    un_format_exact(bw_Bps, text, sizeof text);
    Link *l = z->create_link(name, bw_Bps * PSG_SWITCH_UNFILLED);
    l->set_property(switch_key, bw.empty() ? std::string(text) : bw);
    return l;
}

extern "C" double psg_switch_Bps(const_sg_link_t link)
{
    const char *bw = link->get_property(switch_key);
    double bw_Bps;
    return bw && un_parse(bw, UN_BANDWIDTH, &bw_Bps) == 0 ? bw_Bps : 0;
}

extern "C" int psg_build(const pg_params *p, const unsigned char *racks, bool host_memory,
                         sg_host_t *gpus, sg_host_t *host_mem, char *err)
{
    builder b;
    b.fastest_cable_Bps = pg_fastest_cable_Bps(p);
    const pg_sink zones = {&b,    zone_open, zone_close, prop,       note,
                           link,  host,      router,     route,      star_route,
                           !host_memory}; /* in pg_sink's order */
    bool routed = p->uplink_routing != PG_UPLINKS_FAT;
    try {
        b.world = simgrid::s4u::create_full_zone(world_name);
        psg_routed r{b.world, p, &b.hosts};
        r.fastest_cable_Bps = b.fastest_cable_Bps;
        if (routed) {
            const pg_sink flat = psg_routed_sink(&r);
            pg_describe(p, racks, &flat);
        } else {
            pg_describe(p, racks, &zones);
        }
        simgrid::s4u::Engine::on_platform_created();
        take_hosts(p, b, routed ? &r : nullptr, gpus, host_mem);
        if (routed && psg_routed_open(&r, err) != HS_OK)
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

extern "C" void psg_stack_fit_pages(void)
{
    /* 32 bytes: glibc's header of a mapped block (16) and the block's size word (8), rounded
     * to the 16 bytes SimGrid requires of a stack size. */
    unsigned &size = simgrid::kernel::context::stack_size;
    if (size % 4096 == 0 && size > 4096)
        size -= 32;
}
