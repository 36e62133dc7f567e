# connect-roll — the Slack bot (`connect-roll serve`). Build: docker build -t connect-roll .
# Run:  docker run -e SLACK_BOT_TOKEN -e SLACK_SIGNING_SECRET -e REDIS_URL -p 3000:3000 \
#         -v $PWD/connect-roll.yml:/app/connect-roll.yml:ro connect-roll

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=3000
# Fonts for the timeline chart's PNG (resvg draws text with the system's fonts; the slim image has none).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-liberation fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json manifest.yml ./
COPY examples ./examples
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["serve", "--config", "/app/connect-roll.yml"]
