import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ConsoleApiError } from './api/client';
import { SessionProvider } from './session';
import { App } from './App';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // a refusal (4xx) is an answer, not a glitch: shown at once, never retried
      retry: (count, e) => !(e instanceof ConsoleApiError && e.status >= 400 && e.status < 500) && count < 2,
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
