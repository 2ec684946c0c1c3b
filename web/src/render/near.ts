// Work on elements only once they come near the screen: a long document typesets its math and
// draws its diagrams as the reader reaches them, not all before it can be scrolled.

const observers = new WeakMap<Element, IntersectionObserver>();
const jobs = new WeakMap<Element, () => void>();

/** Run `job` for each of `elements` when it comes within a screen of `scroller`'s view. */
export function whenNear(scroller: Element, elements: Iterable<Element>, job: (element: Element) => void): void {
  let observer = observers.get(scroller);
  if (!observer) {
    observer = new IntersectionObserver(
      (entries, self) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          self.unobserve(entry.target);
          jobs.get(entry.target)?.();
          jobs.delete(entry.target);
        }
      },
      { root: scroller, rootMargin: "100% 0px" },
    );
    observers.set(scroller, observer);
  }
  for (const element of elements) {
    jobs.set(element, () => job(element));
    observer.observe(element);
  }
}
