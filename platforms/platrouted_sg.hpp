/* platrouted_sg.hpp: a generated machine with routed uplinks built in SimGrid's memory as one
 * zone of its own (private to platforms/; platrouted_sg.cpp, used by platbuild_sg.cpp).
 *
 * SimGrid picks the links between two zones from the zones alone, while a routed uplink's
 * cable is chosen per pair of GPUs (platgen_uplinks.c). So the machine is one zone holding
 * every host and link, whose route between two hosts is the one the zones would give
 * (platroute.c resolves the walk as SimGrid does), each uplink replaced by the pair's cable. */
#ifndef PLATROUTED_SG_HPP
#define PLATROUTED_SG_HPP

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "platnames_sg.hpp"

extern "C" {
#include "platgen.h"
}

class RoutedMachine;

/* A routed machine being built: give psg_routed_sink's sink to pg_describe. */
struct psg_routed {
    simgrid::s4u::NetZone *world;                  /* the engine's root, where it is attached */
    const pg_params *p;
    psg_names<simgrid::s4u::Host> *hosts;          /* every host, by name */
    RoutedMachine *machine = nullptr;              /* made at the walk's first zone */
    simgrid::s4u::NetZone *zone = nullptr;         /* its s4u face */
    int depth = 0;                                 /* of the walk's zones, all folded into it */
    double fastest_cable_Bps = 0;                  /* pg_fastest_cable_Bps: psg_fatpipe */
};

/* How many times its nominal bandwidth a switch built as a SHARED link gets: more than all the
 * flows it could ever carry, so that it never fills (psg_fatpipe). */
#define PSG_SWITCH_UNFILLED 1e6

/* A FATPIPE link of the walk (platbuild_sg.cpp): SimGrid's FATPIPE when it is slower than the
 * fastest cable (it may cap a flow: a CPU root's P2P cap), else a switch that caps no flow
 * (every route's bound is a cable's), built as a SHARED link PSG_SWITCH_UNFILLED times its
 * bandwidth with that bandwidth as a property (psg_switch_Bps). SimGrid 3.32's max-min solve
 * recomputes a FATPIPE's usage over all its flows each time it fixes one (maxmin.cpp), the
 * square of its flows at every event; a SHARED link costs one update a flow. bw: the text
 * SimGrid parses, or empty to give it bw_Bps itself. */
simgrid::s4u::Link *psg_fatpipe(simgrid::s4u::NetZone *z, const std::string &name,
                                const std::string &bw, double bw_Bps, double fastest_cable_Bps);

/* A bandwidth's text read as SimGrid reads it (B/s); throws on bad text. */
double psg_bandwidth_Bps(const char *name, const char *bw);

pg_sink psg_routed_sink(psg_routed *r);

/* After the walk: host h (named name) is resolved in the racks of GPU gpu (a host memory's: a
 * GPU of its node). Then the routes' resolver is opened (HS_OK, or HS_EINTERNAL). */
void psg_routed_host(psg_routed *r, const simgrid::s4u::Host *h, int gpu, const char *name);
int psg_routed_open(psg_routed *r, char *err);

/* The models a zone built apart from the engine's root takes from it (platbuild_sg.cpp). */
void psg_copy_models(simgrid::s4u::NetZone *to, const simgrid::s4u::NetZone *from);

#endif
