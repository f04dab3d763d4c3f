// What binds a shared tune's claims to the lives of their owners (docs/scale-out.md): each owner
// holds a session-level advisory lock named by its owner string while it lives; the server
// releases it when the owner's connection ends (the process exits, is killed, loses the network),
// so a claim is live exactly while its owner's lock is held: no lease runs out under a slow
// participant, and a dead one's claims are free as soon as the server sees its connection close.
#pragma once

#include <string_view>

#include "store_impl.hpp"

namespace cutune::store {

// True (as SQL) while the owner of the claim row aliased c holds its life lock, on any
// connection to this database.
inline constexpr std::string_view kOwnerLives =
    "EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND "
    "l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database WHERE datname = "
    "current_database()) AND ((l.classid::bigint << 32) | l.objid::bigint) = "
    "hashtextextended(c.owner, 0))";

// The store's database, or StoreError naming `call` on an SQLite store, which is not shared.
Database& shared_database(Store::Impl& impl, std::string_view call);

// Takes owner's life lock on this connection unless it holds it already; StoreError when another
// connection holds it (two live participants under one name).
void hold_life(Store::Impl& impl, std::string_view owner);

}  // namespace cutune::store
