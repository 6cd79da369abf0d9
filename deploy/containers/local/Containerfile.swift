# A Swift builder image for machines without a registry: Debian 12 (made by debootstrap, see
# deploy/containers/build) with what the official swift:bookworm image installs, and the host's
# own toolchain, which deploy/containers/build mounts read-only at /host-swift.
ARG BASE_IMAGE=localhost/hallmark-base/debian:bookworm
FROM ${BASE_IMAGE}
RUN export DEBIAN_FRONTEND=noninteractive \
 && apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends binutils git gnupg2 libc6-dev libcurl4-openssl-dev \
      libedit2 libgcc-12-dev libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev \
      libz3-dev pkg-config tzdata zlib1g-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN cp -a /host-swift /opt/swift && /opt/swift/usr/bin/swift --version
ENV PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
