# Tonearm: build with the official Swift image on Debian bookworm, run on bookworm-slim.
#   docker build -t tonearm .
#   docker run --device /dev/snd -p 8080:8080 -e TONEARM_TOKEN=secret -v "$PWD/media:/media:ro" tonearm

FROM swift:6.3-bookworm AS build
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        pkg-config libasound2-dev libmpg123-dev libsndfile1-dev libsoxr-dev libsoundtouch-dev \
        libjansson-dev libmicrohttpd-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product tonearm --static-swift-stdlib \
    && install -D "$(swift build -c release --show-bin-path)/tonearm" /out/bin/tonearm
COPY public /out/share/tonearm/public
COPY openapi.yaml /out/share/tonearm/openapi.yaml

FROM debian:bookworm-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libasound2 libasound2-plugins libmpg123-0 libsndfile1 libsoxr0 libsoundtouch1 libjansson4 \
        libmicrohttpd12 libssl3 libstdc++6 curl ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/tonearm --groups audio tonearm \
    && mkdir -p /media && chown tonearm /media
COPY --from=build /out/ /usr/local/
USER tonearm
WORKDIR /var/lib/tonearm
EXPOSE 8080
VOLUME ["/var/lib/tonearm"]
# The token comes from TONEARM_TOKEN: Tonearm refuses to listen on 0.0.0.0 without one.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/tonearm"]
CMD ["serve", "--listen", "0.0.0.0:8080", "--media-root", "/media", "--state-dir", "/var/lib/tonearm/state"]
