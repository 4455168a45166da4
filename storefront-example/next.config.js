/**
 * Unlike the starter, type errors fail the build (no
 * typescript.ignoreBuildErrors): the build is where this repository checks
 * that the package's types resolve under the starter's moduleResolution.
 *
 * @type {import('next').NextConfig}
 */
const nextConfig = {
  reactStrictMode: true,
  // No telemetry, no font or image downloads: CI has only the npm registry.
  images: { unoptimized: true },
}

module.exports = nextConfig
