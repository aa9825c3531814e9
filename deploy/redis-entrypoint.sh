#!/bin/sh
# Starts redis-server (arguments passed on) with the users of redis-users.acl and their
# passwords from the environment:
#   DARKROAD_REDIS_PASSWORD        the API's user, "darkroad"
#   DARKROAD_REDIS_ADMIN_PASSWORD  operators ("admin"), replicas ("replica"), Sentinels ("sentinel")
# A replica logs in to its primary as "replica". The passwords go to files only Redis reads
# (the ACL holds their SHA-256), never to the command line.
#
# A Sentinel (arguments: its configuration file, then --sentinel) gets the users of the
# template it is given (sentinel-users.acl), and logs in to the servers it watches and to
# the other Sentinels as "sentinel": those lines are written to its configuration file
# (a Sentinel rewrites that file, copying an included one into it), replacing any before.
set -eu
: "${DARKROAD_REDIS_PASSWORD:?is not set (deploy/README.md, "Redis users")}"
: "${DARKROAD_REDIS_ADMIN_PASSWORD:?is not set (deploy/README.md, "Redis users")}"
template=${DARKROAD_REDIS_ACL_TEMPLATE:-/usr/local/etc/redis/users.acl}
dir=${DARKROAD_REDIS_SECRETS_DIR:-/data}

sha256() { printf %s "$1" | sha256sum | cut -d' ' -f1; }

umask 077
grep '^user ' "$template" | sed \
    -e "s/@DARKROAD_REDIS_PASSWORD@/$(sha256 "$DARKROAD_REDIS_PASSWORD")/g" \
    -e "s/@DARKROAD_REDIS_ADMIN_PASSWORD@/$(sha256 "$DARKROAD_REDIS_ADMIN_PASSWORD")/g" \
    > "$dir/users.acl"
case " $* " in
*" --sentinel "*)
    config=$1
    sed -n 's/^sentinel monitor \([^ ]*\) .*/\1/p' "$config" > "$config.services"
    grep -v -e '^sentinel auth-user ' -e '^sentinel auth-pass ' -e '^sentinel sentinel-user ' \
        -e '^sentinel sentinel-pass ' "$config" > "$config.new" || :
    while read -r service; do
        printf 'sentinel auth-user %s sentinel\nsentinel auth-pass %s "%s"\n' "$service" "$service" \
            "$DARKROAD_REDIS_ADMIN_PASSWORD" >> "$config.new"
    done < "$config.services"
    printf 'sentinel sentinel-user sentinel\nsentinel sentinel-pass "%s"\n' "$DARKROAD_REDIS_ADMIN_PASSWORD" >> "$config.new"
    mv "$config.new" "$config"
    rm -f "$config.services"
    set -- "$@" --aclfile "$dir/users.acl"
    ;;
*)
    # masterauth is a plain password: it lives in a file included by the configuration.
    printf 'masteruser replica\nmasterauth "%s"\n' "$DARKROAD_REDIS_ADMIN_PASSWORD" > "$dir/replication.conf"
    set -- "$@" --aclfile "$dir/users.acl" --include "$dir/replication.conf"
    ;;
esac

if command -v docker-entrypoint.sh >/dev/null 2>&1; then  # the redis image: runs it as user redis
    exec docker-entrypoint.sh redis-server "$@"
fi
exec redis-server "$@"
