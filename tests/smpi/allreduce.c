/* allreduce.c: an independent reference for hybridsim's collectives, run by SimGrid's SMPI
 * (tests/e2e_smpi.sh): real MPI code on the same platform file, timed in simulated seconds.
 *
 * Usage (under smpirun): allreduce COUNT [GPUS_PER_NODE [RINGS]]
 *   without GPUS_PER_NODE: MPI_Allreduce of COUNT floats over every rank, all ranks starting
 *     at once (SMPI's ring with smpi/allreduce:lr);
 *   with it: the hierarchical allreduce built from MPI pieces: reduce-scatter inside each node
 *     (ranks r / G), allreduce across nodes among ranks of equal r % G, allgather inside the
 *     node, timed from the last rank's exit of a barrier;
 *   with RINGS: NCCL's rings over every NIC written as point-to-point messages (SMPI has no
 *     such allreduce): RINGS ring allreduces of COUNT / RINGS floats at once, ring j visiting
 *     every node's ranks from local index j G / RINGS, each as NCCL's pipeline runs it (its
 *     own tag; a step's synchronous send posted once the step it forwards is in and the one
 *     two steps before it is out; receives posted up to two steps ahead).
 * Prints the time from the last rank's start to the last rank's end, in seconds. The buffers
 * are SMPI's shared allocations: the ranks move no real data worth the name. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* NCCL's rings: 2(n-1) steps of count / (rings n) floats on every ring. */
static void rings_allreduce(float *buf, long count, int per_node, int rings)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int chunk = (int)(count / rings / n), right[16], left[16];
    MPI_Request req[4 * 16];
    for (int j = 0; j < rings && j < 16; j++) {
        int shift = j * per_node / rings;
        int q = rank / per_node * per_node + ((rank % per_node - shift) % per_node + per_node) %
                                                 per_node; /* rank's place on ring j */
        for (int d = -1; d <= 1; d += 2) {
            int p = ((q + d) % n + n) % n;
            int r = p / per_node * per_node + (p % per_node + shift) % per_node;
            *(d < 0 ? &left[j] : &right[j]) = r;
        }
    }
    int steps = 2 * (n - 1), got[16] = {0}, sent[16] = {0}, posted[16] = {0}, done = 0;
    for (int i = 0; i < 4 * 16; i++)
        req[i] = MPI_REQUEST_NULL; /* ring j: receives 4j, 4j+1; sends 4j+2, 4j+3 */
    while (done < rings) {
        for (int j = 0; j < rings; j++) {
            while (posted[j] < steps && posted[j] - got[j] < 2) {
                MPI_Irecv(buf + (size_t)j * chunk, chunk, MPI_FLOAT, left[j], j, MPI_COMM_WORLD,
                          &req[4 * j + posted[j] % 2]);
                posted[j]++;
            }
            while (sent[j] < steps && sent[j] <= got[j] &&
                   req[4 * j + 2 + sent[j] % 2] == MPI_REQUEST_NULL) {
                MPI_Issend(buf + (size_t)(rings + j) * chunk, chunk, MPI_FLOAT, right[j], j,
                           MPI_COMM_WORLD, &req[4 * j + 2 + sent[j] % 2]);
                sent[j]++;
            }
        }
        int i;
        MPI_Waitany(4 * rings, req, &i, MPI_STATUS_IGNORE);
        if (i != MPI_UNDEFINED && i % 4 < 2 && ++got[i / 4] == steps)
            done++;
    }
    MPI_Waitall(4 * rings, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long count = argc > 1 ? atol(argv[1]) : 0;
    int per_node = argc > 2 ? atoi(argv[2]) : 0;
    int rings = argc > 3 ? atoi(argv[3]) : 0;
    float *in = SMPI_SHARED_MALLOC((size_t)count * sizeof *in);
    float *out = SMPI_SHARED_MALLOC((size_t)count * sizeof *out);
    MPI_Comm node = MPI_COMM_NULL, across = MPI_COMM_NULL;
    if (per_node > 0 && rings == 0) {
        MPI_Comm_split(MPI_COMM_WORLD, rank / per_node, rank, &node);
        MPI_Comm_split(MPI_COMM_WORLD, rank % per_node, rank, &across);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double start_s = MPI_Wtime();
    if (per_node == 0) {
        MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else if (rings > 0) {
        rings_allreduce(in, count, per_node, rings);
    } else {
        int part = (int)(count / per_node);
        MPI_Reduce_scatter_block(in, out, part, MPI_FLOAT, MPI_SUM, node);
        MPI_Allreduce(out, in, part, MPI_FLOAT, MPI_SUM, across);
        MPI_Allgather(in, part, MPI_FLOAT, out, part, MPI_FLOAT, node);
    }
    double t[2] = {start_s, MPI_Wtime()}, last[2];
    MPI_Reduce(t, last, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.9f\n", last[1] - last[0]);
    SMPI_SHARED_FREE(in);
    SMPI_SHARED_FREE(out);
    MPI_Finalize();
    return 0;
}
