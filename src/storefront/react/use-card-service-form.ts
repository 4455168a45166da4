"use client"

import { useCallback, useEffect, useRef, useState } from "react"
import {
  CardServiceFormDescriptor,
  fetchCardServiceForm,
  FetchLike,
} from "../backend-api"
import { CardServiceStorefrontError } from "../storefront-error"

export type UseCardServiceFormOptions = {
  backendUrl: string
  publishableKey: string
  /** The card-service payment session (payses_...); nothing is fetched while empty. */
  sessionId: string | null | undefined
  fetch?: FetchLike
}

export type CardServiceFormState =
  | { status: "loading"; descriptor: null; error: null }
  | { status: "ready"; descriptor: CardServiceFormDescriptor; error: null }
  | {
      status: "error"
      descriptor: null
      error: CardServiceStorefrontError | Error
    }

/**
 * Fetches the form descriptor of a session (once per mount and session, and
 * again on reload()). A descriptor is good for one post: its
 * merchantReferenceCode is refused for 15 minutes once used (section 8), so
 * the hook fetches a fresh one when the browser brings the page back from its
 * back-forward cache after a post.
 */
export function useCardServiceForm(
  options: UseCardServiceFormOptions
): CardServiceFormState & { reload: () => void } {
  const { backendUrl, publishableKey, sessionId } = options
  const fetchRef = useRef(options.fetch)
  fetchRef.current = options.fetch
  const [attempt, setAttempt] = useState(0)
  const [state, setState] = useState<CardServiceFormState>({
    status: "loading",
    descriptor: null,
    error: null,
  })
  const reload = useCallback(() => setAttempt((n) => n + 1), [])

  useEffect(() => {
    if (!sessionId) {
      setState({ status: "loading", descriptor: null, error: null })
      return
    }
    const controller = new AbortController()
    setState({ status: "loading", descriptor: null, error: null })
    fetchCardServiceForm({
      backendUrl,
      publishableKey,
      sessionId,
      fetch: fetchRef.current,
      signal: controller.signal,
    }).then(
      (descriptor) => {
        if (!controller.signal.aborted)
          setState({ status: "ready", descriptor, error: null })
      },
      (error: Error) => {
        if (!controller.signal.aborted)
          setState({ status: "error", descriptor: null, error })
      }
    )
    return () => controller.abort()
  }, [backendUrl, publishableKey, sessionId, attempt])

  useEffect(() => {
    if (typeof window === "undefined") return
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) reload()
    }
    window.addEventListener("pageshow", onPageShow)
    return () => window.removeEventListener("pageshow", onPageShow)
  }, [reload])

  return { ...state, reload }
}
