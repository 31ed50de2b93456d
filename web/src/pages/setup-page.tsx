import { AuthLayout } from './auth-layout';
import { HouseholdForm } from './household-form';

export function SetupPage() {
  return (
    <AuthLayout
      title="Welcome to Hearth"
      subtitle="Let’s set up your household. You will be its owner and can invite other parents and carers later."
    >
      <HouseholdForm endpoint="/api/setup" submitLabel="Create household" />
    </AuthLayout>
  );
}
