/* sweep_progress.c: the progress of `hybridsim sweep` on stderr (sweep_int.h): a bar redrawn in
 * place on a terminal, else a plain line now and then, so that a log shows progress without a
 * line per run. */
#include "sweep_int.h"

#include <stdio.h>
#include <unistd.h>

#define SW_PLAIN_PROGRESS_S 10.0 /* a progress line this often when stderr is not a terminal */
#define SW_TTY_PROGRESS_S 0.25   /* the bar's redraws on a terminal, at most this often */

static void format_duration(double s, char *out, size_t len)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(out, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, len, "%ld:%02ld", t / 60, t % 60);
}

static void progress_bar(const sw_progress *p, const char *spent, const char *left)
{
    enum { WIDTH = 30 };
    int finished = p->skipped + p->done;
    char bar[WIDTH + 1];
    int fill = p->total ? (int)((long)WIDTH * finished / p->total) : WIDTH;
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r\033[K[%s] %d/%d %3d%%  %d running  %d error  %d failed  %s  ~%s left",
            bar, finished, p->total, p->total ? 100 * finished / p->total : 100, p->running,
            p->errors, p->failed, spent, left);
}

static void progress_line(const sw_progress *p, const char *spent, const char *left)
{
    fprintf(stderr,
            "sweep: %d/%d done (%d error, %d failed), %d running, %s elapsed, about %s left\n",
            p->skipped + p->done, p->total, p->errors, p->failed, p->running, spent, left);
}

/* A plain line comes every SW_PLAIN_PROGRESS_S and at every tenth of the work. */
void sw_progress_draw(sw_progress *p, bool force)
{
    if (!p->enabled)
        return;
    double now = sw_now_s();
    int tenth = p->to_run ? 10 * p->done / p->to_run : 10;
    if (!p->tty && tenth > p->last_tenth)
        force = true;
    if (!force && now - p->last_s < (p->tty ? SW_TTY_PROGRESS_S : SW_PLAIN_PROGRESS_S))
        return;
    p->last_tenth = tenth;
    p->last_s = now;
    double elapsed = now - p->start_s;
    char spent[32], left[32] = "?";
    format_duration(elapsed, spent, sizeof spent);
    if (p->done > 0)
        format_duration(elapsed / p->done * (p->to_run - p->done), left, sizeof left);
    if (p->tty)
        progress_bar(p, spent, left);
    else
        progress_line(p, spent, left);
    fflush(stderr);
}

void sw_progress_start(sw_progress *p, const sw_plan *plan, bool quiet, int n_todo)
{
    *p = (sw_progress){.enabled = !quiet, .tty = isatty(STDERR_FILENO) == 1,
                       .total = plan->n_configs, .skipped = plan->n_configs - n_todo,
                       .to_run = n_todo, .start_s = sw_now_s()};
    p->last_s = p->start_s;
    if (p->enabled)
        fprintf(stderr, "sweep: %d configurations, %d already in %s, %d to run, %d at a time\n",
                plan->n_configs, plan->n_configs - n_todo, plan->output, n_todo, plan->jobs);
}
