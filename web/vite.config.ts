// Builds the browser UI into the Python package, where `quire serve` serves it.
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const SERVER = "http://127.0.0.1:8765";

interface ProxyRequest {
  setHeader(name: string, value: string): void;
}

const outDir = fileURLToPath(new URL("../src/quire/web/static", import.meta.url));

/** Every browser Quire supports reads WOFF2: ship KaTeX's fonts in that format only. */
function katexWoff2Only(): Plugin {
  return {
    name: "quire-katex-woff2-only",
    enforce: "pre",
    transform(code, id) {
      if (!/katex(\.min)?\.css$/.test(id.split("?")[0] ?? "")) return null;
      return code.replace(/,\s*url\([^)]*\.(woff|ttf)\)\s*format\("(woff|truetype)"\)/g, "");
    },
  };
}

export default defineConfig({
  base: "/",
  plugins: [katexWoff2Only()],
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 4096,
    modulePreload: { polyfill: false },
  },
  server: {
    // `npm run dev` talks to a `quire serve --port 8765`: the proxy presents itself as the
    // server's own page (Host and Origin), which the server's DNS-rebinding check requires.
    proxy: Object.fromEntries(
      ["/api", "/ws", "/open"].map((path) => [
        path,
        {
          target: SERVER,
          ws: path === "/ws",
          changeOrigin: true,
          configure: (proxy: { on: (event: string, listener: (request: ProxyRequest) => void) => void }) => {
            const own = (request: ProxyRequest) => request.setHeader("origin", SERVER);
            proxy.on("proxyReq", own);
            proxy.on("proxyReqWs", own);
          },
        },
      ]),
    ),
  },
});
