/* platcfg.h: the SimGrid settings the user gave (--cfg), kept until the engine starts (private
 * to platforms/; plat_engine_settings is the public face). Checked without SimGrid, so that the
 * front door refuses a bad one before anything runs; SimGrid checks names and values when the
 * engine starts (platform_sg.c). */
#ifndef PLATCFG_H
#define PLATCFG_H

/* The i-th setting given, "name:value" (NULL past the last). */
const char *plat_cfg_at(int i);

/* The value given for setting `name` (the last one given), or NULL. */
const char *plat_cfg_value(const char *name);

#endif
