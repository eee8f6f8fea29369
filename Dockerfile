# The production image: one image, every process role (web, worker, sftp) chosen by its command.
# Build: docker build -t listing-service .   Run them together: docker compose up (compose.yaml).

# Build stage: dev dependencies and the TypeScript compiler, then dist/.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Final stage: runtime dependencies only, the compiled code and the pages it serves; not root.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY api/pages ./api/pages
COPY docs ./docs
# The embedded database and mail outbox live here when DATABASE_URL and SMTP_URL are unset.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
ENV DATA_DIR=/app/data PORT=3000
EXPOSE 3000
# The web role; compose.yaml starts the worker and sftp roles from the same image.
CMD ["node", "--max-old-space-size=1024", "--max-semi-space-size=16", "dist/api/main.js"]
