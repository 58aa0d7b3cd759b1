/* sweep_json.c: a run's JSON output, read with json-c for its CSV row (sweep_int.h).
 *
 * json-c keeps the text a number was parsed from and prints it back as it was, so a %.17g
 * number the child printed reaches the CSV unchanged. */
#include "sweep_int.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

bool sw_json_parse(const char *text, const char *prefix, sw_json *j)
{
    j->prefix = prefix;
    j->root = json_tokener_parse(text);
    if (j->root && !json_object_is_type(j->root, json_type_object)) {
        json_object_put(j->root);
        j->root = NULL;
    }
    return j->root != NULL;
}

const char *sw_json_get(const sw_json *j, const char *path)
{
    size_t n = strlen(j->prefix);
    if (n) { /* a single estimate's members stand at the top */
        if (strncmp(path, j->prefix, n) != 0 || path[n] != '.')
            return NULL;
        path += n + 1;
    }
    json_object *o = j->root;
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        char key[64];
        if (len >= sizeof key)
            return NULL;
        memcpy(key, path, len);
        key[len] = '\0';
        if (json_object_is_type(o, json_type_array)) { /* a member of a list, by its index */
            if (len == 0 || strspn(key, "0123456789") != len)
                return NULL;
            o = json_object_array_get_idx(o, (size_t)strtoul(key, NULL, 10));
        } else if (!json_object_is_type(o, json_type_object) ||
                   !json_object_object_get_ex(o, key, &o)) {
            return NULL;
        }
        path += dot ? len + 1 : len;
    }
    if (!o || json_object_is_type(o, json_type_object) || json_object_is_type(o, json_type_array))
        return NULL;
    return json_object_get_string(o);
}

void sw_json_free(sw_json *j)
{
    if (j->root)
        json_object_put(j->root);
    j->root = NULL;
}
