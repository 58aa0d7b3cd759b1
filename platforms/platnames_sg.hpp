/* platnames_sg.hpp: SimGrid objects by name while a generated machine is built in memory
 * (private to platforms/; platbuild_sg.cpp, platrouted_sg.cpp).
 *
 * The builder looks up every link of every route, and every host and zone, by the name the
 * walk gives. std::unordered_map<std::string, T*> cost a node and a string per entry, a rehash
 * of them all at every doubling and a cache miss per look-up: about half the build of a
 * 131,072-GPU machine (a million entries). Here one array of (hash, name, object) slots, open
 * addressing, the names being the objects' own (SimGrid keeps them as long as the objects
 * live): 24 bytes an entry, nothing copied. */
#ifndef PLATNAMES_SG_HPP
#define PLATNAMES_SG_HPP

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

template <typename T> class psg_names {
    struct slot {
        std::uint64_t hash; /* of the name; 0: empty */
        const char *name;   /* the object's own name */
        T *obj;
    };
    std::vector<slot> slots_; /* a power of two of them, at most half full */
    std::size_t used_ = 0;

    static std::uint64_t hash_of(const char *s)
    {
        std::uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
        for (; *s; s++)
            h = (h ^ static_cast<unsigned char>(*s)) * UINT64_C(1099511628211);
        return h ? h : 1;
    }

    std::size_t find(const char *name, std::uint64_t h) const
    {
        std::size_t mask = slots_.size() - 1, i = static_cast<std::size_t>(h) & mask;
        while (slots_[i].hash && !(slots_[i].hash == h && std::strcmp(slots_[i].name, name) == 0))
            i = (i + 1) & mask;
        return i;
    }

    void grow()
    {
        std::vector<slot> old(slots_.empty() ? 1024 : 2 * slots_.size(), slot{0, nullptr, nullptr});
        old.swap(slots_);
        for (const slot &s : old)
            if (s.hash)
                slots_[find(s.name, s.hash)] = s;
    }

  public:
    /* Name `name` is obj (replacing what it named); stored_name: the same text, kept alive by
     * obj (its SimGrid name). */
    void put(const char *stored_name, T *obj)
    {
        if (2 * (used_ + 1) > slots_.size())
            grow();
        std::uint64_t h = hash_of(stored_name);
        slot &s = slots_[find(stored_name, h)];
        used_ += s.hash == 0;
        s = slot{h, stored_name, obj};
    }

    /* The object of that name, nullptr if none. */
    T *get(const char *name) const
    {
        if (slots_.empty())
            return nullptr;
        const slot &s = slots_[find(name, hash_of(name))];
        return s.hash ? s.obj : nullptr;
    }

    /* The object of that name; std::out_of_range naming it if none (a walk that names what it
     * did not build). */
    T *at(const char *name) const
    {
        T *obj = get(name);
        if (!obj)
            throw std::out_of_range(std::string("the platform names '") + name +
                                    "' before building it");
        return obj;
    }
};

#endif
